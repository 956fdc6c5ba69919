/**
 * Compile-time equality of two types: `Same<A, B>` is `true` only when A and B are identical (not
 * merely assignable), so a field added, renamed, made optional or retyped on one side fails.
 * Use as `const check: Same<A, B> = true`.
 */
export type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
