import type { NextFunction, Request, Response } from 'express';
import { ValidationError } from '../../../domain/errors.js';
import { PayloadTooLargeError } from '../http-errors.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function describeLimit(limit: number): string {
  return limit % 1024 === 0 ? `${limit} bytes (${limit / 1024} KiB)` : `${limit} bytes`;
}

function checkHeaders(req: Request): void {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity') {
    throw new ValidationError(`Content-Encoding ${encoding} is not accepted for uploads: send the manifest uncompressed`);
  }
  const type = req.headers['content-type'];
  if (type === undefined) return;
  const [media, ...params] = type.split(';').map((p) => p.trim());
  if (!JSON_TYPE.test(media)) throw new ValidationError(`Content-Type must be application/json, got ${media.slice(0, 100)}`);
  const charset = params
    .find((p) => /^charset=/i.test(p))
    ?.slice(8)
    .replace(/"/g, '')
    .toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new ValidationError(`Unsupported charset ${charset.slice(0, 40)}: send the manifest as UTF-8`);
  }
}

function parse(body: Buffer): unknown {
  if (body.length === 0) throw new ValidationError('Request body is empty: send the upload manifest as a JSON object');
  let text: string;
  try {
    text = UTF8.decode(body);
  } catch {
    throw new ValidationError('Request body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError('Request body is not valid JSON');
  }
}

/**
 * The body reader of the upload route, mounted ahead of the app's JSON parser.
 * The raw size cap is decided while streaming: a declared Content-Length over
 * the limit is refused before a byte is read, and a body that grows past it is
 * refused at the chunk that crosses it; chunks past the limit are never kept.
 * A refusal answers 413 with `Connection: close`, so node closes the socket
 * once the answer is out instead of reading the rest of a huge body.
 * On success `req.body` holds the parsed JSON (any JSON value; the use case checks the shape).
 */
export function uploadBody(limit: number) {
  return (req: Request, res: Response, next: NextFunction) => {
    const refuse = (err: Error) => {
      res.setHeader('Connection', 'close');
      next(err);
    };
    try {
      checkHeaders(req);
    } catch (err) {
      return refuse(err as Error);
    }
    const tooLarge = () => new PayloadTooLargeError(`Upload body exceeds the limit of ${describeLimit(limit)}`);
    const declared = Number(req.headers['content-length']);
    if (declared > limit) return refuse(tooLarge());

    const chunks: Buffer[] = [];
    let received = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.on('error', () => undefined);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) {
        chunks.length = 0;
        stop();
        // Read no further: TCP backpressure holds the client until node closes the socket after the 413.
        req.pause();
        refuse(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      try {
        req.body = parse(Buffer.concat(chunks, received));
      } catch (err) {
        return next(err);
      }
      next();
    };
    // A client that aborts gets no answer; the socket is already gone.
    const onError = () => stop();
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  };
}
