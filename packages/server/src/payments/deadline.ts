// Processor calls are raced against a deadline: a client library that ignores its abort signal
// (or a processor that never answers) must not hold a shopper's request or a sweep forever.

export function withDeadline<T>(call: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the processor did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([call, deadline]).finally(() => clearTimeout(timer));
}
