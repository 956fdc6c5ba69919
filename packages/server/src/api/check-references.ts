// Rules that need the merchant's data: the terminal (2016), its currencies (2011), the theme (2010).
import type { Database } from "../db/connect.ts";
import { findTerminal, findTheme } from "../db/merchants-repository.ts";
import { AppError } from "../domain/errors.ts";
import type { LinkTerms } from "../domain/links/types.ts";

export async function checkTerminalAndCurrency(db: Database, merchantId: string, terms: LinkTerms): Promise<void> {
  const terminal = await findTerminal(db, merchantId, terms.terminalIdentifier);
  if (!terminal) {
    throw new AppError("TerminalNotFound", `terminalIdentifier "${terms.terminalIdentifier}" is not one of your terminals.`).at(
      "terminalIdentifier",
    );
  }
  if (terminal.currencies !== null && !terminal.currencies.includes(terms.currency)) {
    throw new AppError(
      "CurrencyNotAccepted",
      `terminal ${terminal.terminalIdentifier} does not accept ${terms.currency}; it accepts ${terminal.currencies.join(", ")}.`,
    ).at("currency");
  }
}

export async function checkTheme(db: Database, merchantId: string, themeKey: string | null): Promise<void> {
  if (themeKey !== null && !(await findTheme(db, merchantId, themeKey))) {
    throw new AppError("ThemeNotFound", `themeKey "${themeKey}" is not one of your themes.`).at("themeKey");
  }
}
