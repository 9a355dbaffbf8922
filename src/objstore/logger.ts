/** The log calls a bucket makes: an object first, then the message. A pino logger fits. */
export interface ObjstoreLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}
