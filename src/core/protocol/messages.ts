/**
 * The control socket's messages, as zod schemas validated in both directions.
 * One JSON object per line; `type` discriminates. Requests that expect an
 * answer carry an `id` that the answer echoes (`ack`, `stopped`, `error`).
 */
import * as z from '../common/zod';
import { LifecycleStateSchema } from '../store/recordSchemas';

/** Protocol revision; a worker refuses a hello/attach with a different major. */
export const PROTOCOL_VERSION = 1;

/** Longest accepted line in bytes (without the newline); a longer line closes that connection. */
export const MAX_LINE_BYTES = 1024 * 1024;

/**
 * Longest accepted first line (`attach` or `hello`, before any token is checked): the longest valid
 * one, a 256-character token with every character escaped as `\uXXXX`, is under 2 KiB. Held to
 * MAX_LINE_BYTES, any process that can open the socket made the worker hold 1 MiB per connection
 * for the whole handshake time (bug 163).
 */
export const MAX_FIRST_LINE_BYTES = 8 * 1024;

/**
 * Binary output frames (worker → viewers that asked for them): this byte, a
 * 4-byte big-endian payload length, then that many bytes of UTF-8 text. A JSON
 * line never starts with it ('{' does), so both kinds share one stream.
 */
export const BINARY_OUTPUT_FRAME = 0x01;
export const BINARY_HEADER_BYTES = 5;
/**
 * Worker frames can be large (a serialized screen of a big terminal); this only bounds the client's memory. The
 * worker keeps every `ready` within it (bug 205).
 */
export const MAX_SERVER_LINE_BYTES = 16 * 1024 * 1024;

/** Largest binary output payload accepted (the worker sends at most 64 KiB). */
export const MAX_BINARY_OUTPUT_BYTES = 1024 * 1024;

/** Largest `input`/`send` payload (characters): leaves room for JSON escaping inside MAX_LINE_BYTES. */
export const MAX_INPUT_CHARS = 64 * 1024;

export const MIN_DIMENSION = 2;
export const MAX_COLS = 1000;
export const MAX_ROWS = 500;

const RequestId = z.number().check(z.int(), z.nonnegative(), z.lte(Number.MAX_SAFE_INTEGER));
const Token = z.string().check(z.minLength(1), z.maxLength(256));
const Cols = z.number().check(z.int(), z.gte(MIN_DIMENSION), z.lte(MAX_COLS));
const Rows = z.number().check(z.int(), z.gte(MIN_DIMENSION), z.lte(MAX_ROWS));
const Text = z.string().check(z.maxLength(MAX_INPUT_CHARS));

export const WaitingSignalSchema = z.enum(['waiting', 'running']);
export type WaitingSignal = z.infer<typeof WaitingSignalSchema>;

// ---- client → worker ----------------------------------------------------

/** First frame of a viewer: authenticates, then streams output. */
export const AttachSchema = z.strictObject({
  type: z.literal('attach'),
  version: z.optional(z.literal(PROTOCOL_VERSION)),
  token: Token,
  cols: Cols,
  rows: Rows,
  readOnly: z.boolean(),
  /** Output as binary frames instead of `output` lines (cheaper for both sides in a flood). */
  binaryOutput: z.optional(z.boolean()),
});
/** First frame of a control connection (send, stop, signal) that does not stream output. */
export const HelloSchema = z.strictObject({
  type: z.literal('hello'),
  version: z.optional(z.literal(PROTOCOL_VERSION)),
  token: Token,
});
export const InputSchema = z.strictObject({ type: z.literal('input'), data: Text });
export const ResizeSchema = z.strictObject({ type: z.literal('resize'), cols: Cols, rows: Rows });
export const DetachSchema = z.strictObject({ type: z.literal('detach') });
/** A viewer asks for a fresh screen (`ready` with `resync: true`), e.g. after the agent left its alternate screen. */
export const RefreshSchema = z.strictObject({ type: z.literal('refresh') });
export const SendSchema = z.strictObject({ type: z.literal('send'), id: RequestId, text: Text });
export const SignalSchema = z.strictObject({ type: z.literal('signal'), id: RequestId, state: WaitingSignalSchema });
export const StopSchema = z.strictObject({ type: z.literal('stop'), id: RequestId, force: z.boolean() });

export const ClientMessageSchema = z.discriminatedUnion('type', [
  AttachSchema,
  HelloSchema,
  InputSchema,
  ResizeSchema,
  DetachSchema,
  RefreshSchema,
  SendSchema,
  SignalSchema,
  StopSchema,
]);
export type ClientMessage = z.infer<typeof ClientMessageSchema>;
export type AttachMessage = z.infer<typeof AttachSchema>;

// ---- worker → client ----------------------------------------------------

const ExitFields = {
  code: z.nullable(z.number().check(z.int())),
  signal: z.nullable(z.string().check(z.maxLength(32))),
};

/** Answer to attach (and, with `resync: true`, a fresh screen for a viewer that fell behind). */
export const ReadySchema = z.strictObject({
  type: z.literal('ready'),
  version: z.literal(PROTOCOL_VERSION),
  /** The current screen serialized as terminal escape sequences (replayable into an empty terminal). */
  screen: z.string(),
  cols: Cols,
  rows: Rows,
  state: LifecycleStateSchema,
  readOnly: z.boolean(),
  resync: z.boolean(),
  /** Set when the agent had already ended: the screen is final. */
  exit: z.nullable(z.strictObject(ExitFields)),
});
export const WelcomeSchema = z.strictObject({
  type: z.literal('welcome'),
  version: z.literal(PROTOCOL_VERSION),
  state: LifecycleStateSchema,
  /** `agent` connections (the token given to the agent's environment) may only signal. */
  role: z.enum(['control', 'agent']),
});
export const OutputSchema = z.strictObject({ type: z.literal('output'), data: z.string() });
/** The header of a binary output frame, validated before its payload is read. */
export const BinaryOutputHeaderSchema = z.strictObject({
  kind: z.literal(BINARY_OUTPUT_FRAME),
  length: z.number().check(z.int(), z.gte(1), z.lte(MAX_BINARY_OUTPUT_BYTES)),
});
export const SizeSchema = z.strictObject({ type: z.literal('size'), cols: Cols, rows: Rows });
export const AckSchema = z.strictObject({ type: z.literal('ack'), id: RequestId });
export const StoppedSchema = z.strictObject({
  type: z.literal('stopped'),
  id: RequestId,
  state: LifecycleStateSchema,
  escalated: z.boolean(),
  /** Processes of the agent still alive after SIGKILL (normally none), described for a person. */
  survivors: z.array(z.strictObject({ pid: z.number().check(z.int(), z.positive()), command: z.string().check(z.maxLength(500)) })).check(z.maxLength(100)),
});
export const ExitSchema = z.strictObject({ type: z.literal('exit'), ...ExitFields, state: LifecycleStateSchema });
export const ErrorSchema = z.strictObject({
  type: z.literal('error'),
  id: z.optional(RequestId),
  message: z.string().check(z.maxLength(2000)),
  /** `fatal`: the worker closes the connection after this frame. */
  fatal: z.boolean(),
});

export const ServerMessageSchema = z.discriminatedUnion('type', [
  ReadySchema,
  WelcomeSchema,
  OutputSchema,
  SizeSchema,
  AckSchema,
  StoppedSchema,
  ExitSchema,
  ErrorSchema,
]);
export type ServerMessage = z.infer<typeof ServerMessageSchema>;
export type ReadyMessage = z.infer<typeof ReadySchema>;
export type StoppedMessage = z.infer<typeof StoppedSchema>;
export type ExitMessage = z.infer<typeof ExitSchema>;
