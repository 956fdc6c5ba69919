// Column types shared by the table shapes of schema.ts and its companions.
import type { ColumnType } from "kysely";

/** A timestamptz column with a database default. */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** A nullable timestamptz column. */
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
export type Json<T> = ColumnType<T, string, string>;
