import { StringDecoder } from 'node:string_decoder';
import { Writable } from 'node:stream';

/**
 * Characters that act on a terminal instead of being shown: C0 controls but tab and newline
 * (ESC starts every escape sequence; CR and BS overwrite what is on the line), DEL, C1 controls
 * (CSI U+009B is a one-character ESC [), and the bidirectional controls that reorder text
 * (Trojan Source: U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C).
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from a file made safe to print: each unsafe character shown as its `\uXXXX` escape,
 * which is also how JSON writes it, so `--json` output stays valid JSON meaning the same text.
 */
function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export interface GuardedOutput {
  stream: Writable;
  /** The reader went away (EPIPE): later writes are dropped. */
  readonly closed: boolean;
}

/**
 * A stream in front of stdout or stderr that (unless `raw`) escapes what a terminal would act
 * on, and survives its reader: when the pipe closes (`| head`) the EPIPE is taken quietly and
 * what is written afterwards is dropped, so the command ends with its own exit code.
 */
export function guardOutput(target: NodeJS.WritableStream, options: { raw?: boolean } = {}): GuardedOutput {
  let closed = false;
  const decoder = new StringDecoder('utf8');
  target.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') closed = true;
    else throw err;
  });
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      if (closed) return done();
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      try {
        target.write(options.raw ? text : terminalSafe(text), () => done());
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EPIPE') closed = true;
        done();
      }
    },
  });
  return {
    stream,
    get closed() {
      return closed;
    },
  };
}
