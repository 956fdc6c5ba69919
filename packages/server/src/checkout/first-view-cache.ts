// A link's checkout page as a shopper first sees it (no values typed, no errors, no alert) is the
// same HTML for every shopper but for two strings: the response's CSP nonce and the form token.
// Rendering it was a fifth of a page view's CPU (preact, Intl's money formatting), so each page is
// rendered once with two markers in their places and later views swap the markers for this
// response's values (docs/decisions.md#checkout-pages).
//
// The key is the content the page is rendered from (the view's props: language, theme, reference,
// terms), not a version number, so an updated link or theme is a new key and nothing has to be
// invalidated. The views read nothing but their props (no clock, no request).
import { randomBytes } from "node:crypto";

// Random per process, so no text a merchant or shopper writes can contain them.
const MARKER_SEED = randomBytes(12).toString("hex");
export const NONCE_MARKER = `n${MARKER_SEED}n`;
export const FORM_TOKEN_MARKER = `t${MARKER_SEED}t`;

/** Characters of keys and pages kept at most (JavaScript strings: about 2 bytes each at worst). */
const MAX_CHARS = 4_000_000;

export class FirstViewCache {
  // Map keeps insertion order: a hit is moved to the end, the first entry is the least recently used.
  readonly #pages = new Map<string, string>();
  #chars = 0;

  constructor(private readonly maxChars = MAX_CHARS) {}

  /**
   * The page for `key` with this response's nonce and form token; `render` makes it, with the
   * markers in their places, when the key is not kept.
   */
  page(key: string, render: () => string, nonce: string, formToken: string): string {
    let template = this.#pages.get(key);
    if (template === undefined) {
      template = render();
      this.#keep(key, template);
    } else {
      this.#pages.delete(key);
      this.#pages.set(key, template);
    }
    // Replacer functions: a replacement string would give `$&` and its kind a meaning.
    return template.replaceAll(NONCE_MARKER, () => nonce).replaceAll(FORM_TOKEN_MARKER, () => formToken);
  }

  get size(): number {
    return this.#pages.size;
  }

  #keep(key: string, template: string) {
    const chars = key.length + template.length;
    if (chars > this.maxChars) return;
    this.#pages.set(key, template);
    this.#chars += chars;
    for (const [oldKey, oldTemplate] of this.#pages) {
      if (this.#chars <= this.maxChars) break;
      this.#pages.delete(oldKey);
      this.#chars -= oldKey.length + oldTemplate.length;
    }
  }
}
