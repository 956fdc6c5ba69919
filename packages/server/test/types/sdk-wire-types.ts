// Compile-time agreement of the SDK's wire types with the server's schemas (checked by
// `npm run typecheck`; nothing here runs). A field renamed, added or retyped on one side only makes
// one of these constants fail to type-check:
//   - requests: the schema knows every field the SDK writes (exactly the same names where the
//     server has no aliases), and whatever the SDK lets a merchant send, the schema accepts;
//   - responses: the field names are exactly the schema's, and whatever the server may answer, the
//     SDK's types describe;
//   - error codes: the SDK knows exactly the catalogue's codes.
import type {
  AdjustRequest,
  CaptureRequest,
  ChargeTokenRequest,
  ChargeTokenResponse,
  CreatePaymentLinkRequest,
  CreatePaymentLinkResponse,
  CreateSessionRequest,
  CreateSessionResponse,
  DisablePaymentLinkRequest,
  DisableTokenRequest,
  ErrorBody,
  GetPaymentLinkResponse,
  GetPaymentResponse,
  KnownErrorCode,
  ListPaymentLinksQuery,
  ListPaymentLinksResponse,
  ModificationResponse,
  Payment,
  PaymentDisableTokenResponse,
  PaymentLink,
  PaymentLinkSummary,
  RefundRequest,
  ResponseEnvelope,
  ReverseRequest,
  SessionStatusResponse,
  Submission,
  UpdatePaymentLinkRequest,
} from "paylink-sdk";
import type { Static } from "typebox";
import type {
  AdjustBody,
  CaptureBody,
  ChargeTokenBody,
  ChargeTokenResponse as ChargeTokenResponseSchema,
  DisableTokenBody,
  GetPaymentResponse as GetPaymentResponseSchema,
  ModificationResponse as ModificationResponseSchema,
  Payment as PaymentSchema,
  RefundBody,
  ReverseBody,
} from "../../src/api/after-sale-schemas.ts";
import type {
  CreateLinkBody,
  CreateLinkResponse,
  DisableLinkBody,
  EnvelopeResponse,
  ErrorResponse,
  GetLinkResponse,
  LinkSummary,
  ListLinksQuery,
  ListLinksResponse,
  PaymentLink as PaymentLinkSchema,
  Submission as SubmissionSchema,
  UpdateLinkBody,
} from "../../src/api/schemas.ts";
import type {
  CreateSessionBody,
  CreateSessionResponse as CreateSessionResponseSchema,
  PaymentDisableTokenResponse as PaymentDisableTokenResponseSchema,
  SessionStatusResponse as SessionStatusResponseSchema,
} from "../../src/api/session-schemas.ts";
import type { ErrorCode } from "../../src/domain/errors.ts";
import type { Same } from "../../src/types/same.ts";

type Assignable<From, To> = [From] extends [To] ? true : false;
/** The reader knows every field the sender may write, and every value fits what the reader expects. */
type Accepts<Reader, Sender> = Assignable<keyof Sender, keyof Reader> extends true ? Assignable<Sender, Reader> : false;
/** As Accepts, and neither side has a field the other lacks. */
type Agree<Sender, Reader> = Assignable<keyof Reader, keyof Sender> extends true ? Accepts<Reader, Sender> : false;

// Requests: the SDK sends, the server's schema reads. The server may accept more than the SDK
// writes (aliases such as expiresAt on update); the SDK never writes a field the server refuses.
// (A Date in the list query is sent as ISO text.)
export const createRequest: Agree<CreatePaymentLinkRequest, Static<typeof CreateLinkBody>> = true;
export const updateRequest: Accepts<Static<typeof UpdateLinkBody>, UpdatePaymentLinkRequest> = true;
export const disableRequest: Agree<DisablePaymentLinkRequest, Static<typeof DisableLinkBody>> = true;
export const listQuery: Agree<
  Omit<ListPaymentLinksQuery, "createdFrom" | "createdTo"> & { createdFrom?: string; createdTo?: string },
  Static<typeof ListLinksQuery>
> = true;

// Responses: the server sends, the SDK reads.
export const envelope: Agree<Static<typeof EnvelopeResponse>, ResponseEnvelope> = true;
export const createResponse: Agree<Static<typeof CreateLinkResponse>, CreatePaymentLinkResponse> = true;
export const getResponse: Agree<Static<typeof GetLinkResponse>, GetPaymentLinkResponse> = true;
export const paymentLink: Agree<Static<typeof PaymentLinkSchema>, PaymentLink> = true;
export const submission: Agree<Static<typeof SubmissionSchema>, Submission> = true;
export const listResponse: Agree<Static<typeof ListLinksResponse>, ListPaymentLinksResponse> = true;
export const summary: Agree<Static<typeof LinkSummary>, PaymentLinkSummary> = true;
export const errorBody: Agree<Static<typeof ErrorResponse>, ErrorBody> = true;
export const errorCodes: Same<KnownErrorCode, ErrorCode> = true;

// After the link: saved cards, refunds, reversals.
export const chargeTokenRequest: Agree<ChargeTokenRequest, Static<typeof ChargeTokenBody>> = true;
export const refundRequest: Agree<RefundRequest, Static<typeof RefundBody>> = true;
export const reverseRequest: Agree<ReverseRequest, Static<typeof ReverseBody>> = true;
export const captureRequest: Agree<CaptureRequest, Static<typeof CaptureBody>> = true;
export const adjustRequest: Agree<AdjustRequest, Static<typeof AdjustBody>> = true;
export const disableTokenRequest: Agree<DisableTokenRequest, Static<typeof DisableTokenBody>> = true;
export const chargeTokenResponse: Agree<Static<typeof ChargeTokenResponseSchema>, ChargeTokenResponse> = true;
export const modificationResponse: Agree<Static<typeof ModificationResponseSchema>, ModificationResponse> = true;
export const getPaymentResponse: Agree<Static<typeof GetPaymentResponseSchema>, GetPaymentResponse> = true;
export const payment: Agree<Static<typeof PaymentSchema>, Payment> = true;

// Hosted-checkout sessions.
export const createSessionRequest: Agree<CreateSessionRequest, Static<typeof CreateSessionBody>> = true;
export const createSessionResponse: Agree<Static<typeof CreateSessionResponseSchema>, CreateSessionResponse> = true;
export const sessionStatusResponse: Agree<Static<typeof SessionStatusResponseSchema>, SessionStatusResponse> = true;
export const paymentDisableTokenResponse: Agree<Static<typeof PaymentDisableTokenResponseSchema>, PaymentDisableTokenResponse> = true;
