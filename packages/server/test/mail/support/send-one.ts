// Sends one message through smtpTransport from SMTP_URL, in a process of its own, so that the test
// can start it with NODE_EXTRA_CA_CERTS as an operator would. Exits 0 when sent, 1 with the reason.
import { smtpTransport } from "../../../src/mail/transport.ts";

const transport = smtpTransport(process.env.SMTP_URL ?? "", "Paylink <no-reply@paylink.test>");
try {
  await transport.send({
    to: "owner@example.com",
    subject: "STARTTLS",
    html: "<p>over TLS</p>",
    text: "over TLS",
    language: "en",
    id: "starttls-test",
  });
  process.exitCode = 0;
} catch (error) {
  process.stderr.write(String((error as Error).message));
  process.exitCode = 1;
} finally {
  transport.close();
}
