import { isNotFound, ObjectNotFoundError, type Bucket } from './bucket.js';

/**
 * `bucket` with every object name under `prefix`, as Thanos'
 * objstore.NewPrefixedBucket: the prefix is trimmed of `/` at both ends and
 * joined with `/`; a prefix of nothing but slashes means no prefix. Names
 * going in gain `prefix/`, names coming out of iter lose it.
 */
export function prefixed(bucket: Bucket, prefix: string): Bucket {
  const p = prefix.replace(/^\/+|\/+$/g, '');
  return p === '' ? bucket : new PrefixedBucket(bucket, p);
}

class PrefixedBucket implements Bucket {
  readonly name: string;
  constructor(private readonly inner: Bucket, private readonly prefix: string) {
    this.name = `${inner.name} prefix ${prefix}`;
  }

  private full(name: string): string {
    return name === '' ? name : `${this.prefix}/${name}`;
  }

  /** Rethrows a not-found error with the caller's name for the object. */
  private async call<T>(name: string, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (err) {
      if (isNotFound(err)) throw new ObjectNotFoundError(name, this.name);
      throw err;
    }
  }

  uploadFile(name: string, path: string): Promise<void> {
    return this.inner.uploadFile(this.full(name), path);
  }
  upload(name: string, bytes: Uint8Array): Promise<void> {
    return this.inner.upload(this.full(name), bytes);
  }
  get(name: string): Promise<Buffer> {
    return this.call(name, () => this.inner.get(this.full(name)));
  }
  exists(name: string): Promise<boolean> {
    return this.inner.exists(this.full(name));
  }
  size(name: string): Promise<number> {
    return this.call(name, () => this.inner.size(this.full(name)));
  }
  async iter(dir: string, opts?: { recursive?: boolean }): Promise<string[]> {
    const strip = `${this.prefix}/`;
    const names = await this.inner.iter(`${this.prefix}/${dir}`, opts);
    return names.map((n) => (n.startsWith(strip) ? n.slice(strip.length) : n));
  }
  delete(name: string): Promise<void> {
    return this.inner.delete(this.full(name));
  }
  async dropPartial(dir: string): Promise<void> {
    await this.inner.dropPartial?.(this.full(dir));
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
