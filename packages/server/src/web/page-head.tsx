/** @jsxRuntime automatic @jsxImportSource preact */
// The <head> of every server-rendered page, the checkout's and the portal's: not indexed, no
// referrer beyond this origin, no favicon request (a page makes no request it does not need),
// at most one stylesheet file (same origin, cached for good), styles inline under the response's
// CSP nonce, at most one script file.

export function PageHead(props: {
  title: string;
  nonce: string;
  /** A same-origin stylesheet file, linked before the inline styles (the page's CSP must allow 'self' styles). */
  stylesheetPath?: string | null | undefined;
  /** Style sheets, each in its own <style> element, in this order. */
  styles: string[];
  scriptPath?: string | null | undefined;
  /** The page is drawn for a light background only (the checkout's theme colours assume it). */
  lightOnly?: boolean;
}) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex, nofollow" />
      <meta name="referrer" content="same-origin" />
      {props.lightOnly ? <meta name="color-scheme" content="light" /> : null}
      <link rel="icon" href="data:," />
      <title>{props.title}</title>
      {props.stylesheetPath ? <link rel="stylesheet" href={props.stylesheetPath} /> : null}
      {props.styles.map((css) => (
        <style key={css} nonce={props.nonce}>
          {css}
        </style>
      ))}
      {props.scriptPath ? <script src={props.scriptPath} defer /> : null}
    </head>
  );
}
