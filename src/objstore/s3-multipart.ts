import type { FileHandle } from 'node:fs/promises';
import type { HashSums } from './part-hasher.js';
import type { PartBuffers } from './part-buffers.js';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, UploadPartCommand,
  type CompletedPart, type PutObjectCommandInput, type S3Client,
} from '@aws-sdk/client-s3';

/**
 * Where the bytes of a multipart upload come from. `read` gives the bytes
 * [offset, offset + length): a view of `scratch` (filled by it) or of the
 * source itself; the view is used only until that part's upload ends.
 */
export interface PartSource {
  readonly size: number;
  /** Whether `read` needs a scratch buffer of the part size (a file) or answers views of its own (memory). */
  readonly needsScratch: boolean;
  /** The open file's descriptor, for a hasher that reads parts itself; valid until the upload ends. */
  readonly fd?: number;
  read(offset: number, length: number, scratch: Buffer): Promise<Uint8Array>;
}

/** Parts of a buffer already in memory: views, never copied. */
export function bufferSource(body: Buffer): PartSource {
  return { size: body.length, needsScratch: false, read: (offset, length) => Promise.resolve(body.subarray(offset, offset + length)) };
}

/** Parts of an open file, each read straight into its scratch buffer (one read call of the part size, looped only when the kernel gives less). */
export function fileSource(file: FileHandle, size: number): PartSource {
  return {
    size,
    needsScratch: true,
    fd: file.fd,
    async read(offset, length, scratch) {
      let got = 0;
      while (got < length) {
        const { bytesRead } = await file.read(scratch, got, length - got, offset + got);
        if (bytesRead === 0) throw new Error(`file shrank while uploading: ${offset + got} of ${size} bytes read`);
        got += bytesRead;
      }
      return scratch.subarray(0, length);
    },
  };
}

const NO_SCRATCH = Buffer.alloc(0);

/** Has SigV4 sign `sha256` (hex) as the payload's hash: the signer takes an x-amz-content-sha256 header as given rather than hashing the body again. */
function withPayloadHash(command: UploadPartCommand, sha256: string): void {
  command.middlewareStack.add((next) => (args) => {
    (args.request as { headers: Record<string, string> }).headers['x-amz-content-sha256'] = sha256;
    return next(args);
  }, { step: 'build', name: 'strataPayloadHash' });
}

/** What one multipart upload sends. */
export interface MultipartParams {
  /** Bucket, Key and what CreateMultipartUpload carries (metadata, storage class, SSE). */
  create: Pick<PutObjectCommandInput, 'Bucket' | 'Key'> & Partial<PutObjectCommandInput>;
  /** What every UploadPart carries too (the SSE-C key). */
  part: { SSECustomerAlgorithm?: string; SSECustomerKey?: string };
  partSize: number;
  /**
   * Hashes a file's parts off the main thread (Content-MD5 and SigV4's
   * payload hash, those it gives), reading them from the file itself when
   * it can. Without it the client hashes each part as it sends it.
   */
  hashing?: PartHashing | undefined;
  /** Where a file's two part buffers come from and go back to (kept between uploads); else two of its own. */
  buffers?: PartBuffers | undefined;
}

/** What PartHasher (part-hasher.ts) does for an upload. */
export interface PartHashing {
  hash(part: Uint8Array): Promise<HashSums>;
  readAndHash(fd: number, position: number, into: Uint8Array): Promise<HashSums>;
}

/** One part read and, with a hasher, hashed. */
interface ReadPart {
  body: Uint8Array;
  sums: HashSums | undefined;
}

/** Part `offset`/`length` of `source` into `scratch`: read and hashed in one pass by the hasher's thread when the source is a file, else read then hashed. */
async function readPart(source: PartSource, offset: number, length: number, scratch: Buffer, hashing: PartHashing | undefined): Promise<ReadPart> {
  if (hashing !== undefined && source.fd !== undefined) {
    const body = scratch.subarray(0, length);
    return { body, sums: await hashing.readAndHash(source.fd, offset, body) };
  }
  const body = await source.read(offset, length, scratch);
  return { body, sums: hashing !== undefined ? await hashing.hash(body) : undefined };
}

/**
 * A multipart upload as minio-go's putObjectMultipartStreamFromReadAt
 * makes it, with at most two parts in flight and so at most two parts of
 * memory: part i+1 is read and hashed (by `hashing` on its own thread, or by
 * the client's middleware and signer as it is sent) while part i is sent;
 * the first part is read and hashed while CreateMultipartUpload is asked.
 * Parts are sent by `client`, which retries them (their bodies are
 * buffers). On any failure the upload is aborted, as lib-storage's
 * leavePartsOnError: false, and the first error thrown.
 */
export async function multipartUpload(client: S3Client, source: PartSource, p: MultipartParams): Promise<void> {
  const { Bucket, Key } = p.create;
  const count = Math.ceil(source.size / p.partSize);
  const parts: CompletedPart[] = new Array<CompletedPart>(count);
  const hashing = source.needsScratch ? p.hashing : undefined;
  const buffers = !source.needsScratch ? [] : p.buffers !== undefined ? p.buffers.take(p.partSize) : [Buffer.allocUnsafeSlow(p.partSize), Buffer.allocUnsafeSlow(p.partSize)];
  const partAt = (i: number): Promise<ReadPart> => {
    const offset = i * p.partSize;
    return readPart(source, offset, Math.min(p.partSize, source.size - offset), buffers[i & 1] ?? NO_SCRATCH, hashing);
  };
  // The first part is read while the upload is created.
  const first = partAt(0);
  first.catch(() => {});
  let uploadId: string;
  try {
    const created = await client.send(new CreateMultipartUploadCommand({ ...p.create, Body: undefined } as never));
    if (created.UploadId === undefined) throw new Error('CreateMultipartUpload answered no UploadId');
    uploadId = created.UploadId;
  } catch (err) {
    await first.catch(() => {});
    if (buffers.length > 0) p.buffers?.give(buffers);
    throw err;
  }
  const slots: Array<Promise<void> | undefined> = [undefined, undefined];
  let failure: unknown;
  const fail = (err: unknown): void => {
    failure ??= err;
  };
  try {
    for (let i = 0; i < count && failure === undefined; i++) {
      const slot = i & 1;
      await slots[slot];
      if (failure !== undefined) break;
      // Read and hashed while the part before is on the wire.
      const { body, sums } = await (i === 0 ? first : partAt(i));
      const partNumber = i + 1;
      const command = new UploadPartCommand({
        Bucket, Key, UploadId: uploadId, PartNumber: partNumber, Body: body, ContentLength: body.byteLength, ...p.part, ...(sums?.md5 !== undefined ? { ContentMD5: sums.md5 } : {}),
      });
      if (sums?.sha256 !== undefined) withPayloadHash(command, sums.sha256);
      slots[slot] = client.send(command)
        .then((out) => {
          if (out.ETag === undefined) throw new Error(`part ${partNumber} answered no ETag`);
          parts[i] = { PartNumber: partNumber, ETag: out.ETag };
        })
        .catch(fail);
    }
  } catch (err) {
    fail(err);
  }
  await Promise.all(slots);
  if (buffers.length > 0) p.buffers?.give(buffers);
  if (failure !== undefined) {
    await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId })).catch(() => {});
    throw failure;
  }
  await client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
}
