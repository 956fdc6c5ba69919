/** @jsxRuntime automatic @jsxImportSource preact */
// The frame every e-mail shares: the checkout's and portal's look (white card on a light grey,
// a brand-blue top line) in inline styles, which is all most mail programs keep. Preact escapes
// every value, so a merchant's or shopper's text can never become markup.
import type { ComponentChildren } from "preact";
import { renderToString } from "preact-render-to-string";
import type { Lang } from "../../web/i18n.ts";

const BRAND = "#1f4e8c";
const INK = "#1a1d21";

export interface MailFrame {
  lang: Lang;
  title: string;
  /** Who the mail is from, shown above the card: the merchant's name, or Paylink. */
  sender: string;
  /** Why the reader got this mail, in small print under the card. */
  footer: string;
  children: ComponentChildren;
}

export function renderMailHtml(frame: MailFrame): string {
  return `<!doctype html>${renderToString(<MailDocument {...frame} />)}`;
}

function MailDocument({ lang, title, sender, footer, children }: MailFrame) {
  return (
    <html lang={lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title}</title>
      </head>
      <body
        style={`margin:0;padding:0;background:#f3f5f7;color:${INK};font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,Helvetica Neue,Arial,sans-serif`}
      >
        <div style="max-width:560px;margin:0 auto;padding:16px">
          <p style="margin:8px 0 12px;font-weight:600">{sender}</p>
          <div style={`background:#ffffff;border:1px solid #e1e5ea;border-top:4px solid ${BRAND};border-radius:6px;padding:20px`}>
            <h1 style="font-size:20px;margin:0 0 12px">{title}</h1>
            {children}
          </div>
          <p style="font-size:13px;color:#5b6470;margin:12px 0">{footer}</p>
        </div>
      </body>
    </html>
  );
}

/** A label and its value, one row of a mail's facts table. */
export function FactRows({ rows }: { rows: Array<[string, string]> }) {
  return (
    <table role="presentation" style="width:100%;border-collapse:collapse;margin:12px 0">
      <tbody>
        {rows.map(([label, value]) => (
          <tr>
            <td style="padding:4px 8px 4px 0;color:#5b6470;vertical-align:top">{label}</td>
            <td style="padding:4px 0;text-align:right;vertical-align:top">{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A button-like link (mail programs drop scripts and most CSS, not this). */
export function MailButton({ href, children }: { href: string; children: ComponentChildren }) {
  return (
    <p style="margin:16px 0">
      <a
        href={href}
        style={`display:inline-block;background:${BRAND};color:#ffffff;padding:10px 16px;border-radius:6px;text-decoration:none`}
      >
        {children}
      </a>
    </p>
  );
}

/** The plain-text part: lines, then facts as "label: value". */
export function plainText(parts: Array<string | Array<[string, string]> | null>): string {
  return `${parts
    .filter((part) => part !== null)
    .map((part) => (typeof part === "string" ? part : part.map(([label, value]) => `${label}: ${value}`).join("\n")))
    .join("\n\n")}\n`;
}
