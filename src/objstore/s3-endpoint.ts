/**
 * What minio-go (Thanos' S3 client) decides from the endpoint alone,
 * ported so that Strata talks to the same URLs: whether the endpoint is
 * Amazon S3, which region its host names, and whether `bucket_lookup_type:
 * auto` means virtual-hosted or path style. (minio-go pkg/s3utils.)
 */

const AMAZON_REGION_HOSTS = [
  /^s3-fips\.dualstack\.(.*?)\.amazonaws\.com$/,
  /^s3-fips\.(.*?)\.amazonaws\.com$/,
  /^s3\.dualstack\.(.*?)\.amazonaws\.com$/,
  /^s3-(.*?)\.amazonaws\.com$/,
  /^s3\.(cn.*?)\.amazonaws\.com\.cn$/,
  /^s3\.dualstack\.(cn.*?)\.amazonaws\.com\.cn$/,
  /^(?:bucket|accesspoint)\.vpce-.*?\.s3\.(.*?)\.vpce\.amazonaws\.com$/,
  /^s3express-[a-z0-9]{3,7}-az[1-6]\.([a-z0-9-]+)\.amazonaws\.com$/,
  /^s3express-control\.([a-z0-9-]+)\.amazonaws\.com$/,
];
const OUTPOSTS = /^(.+)\.s3-outposts\.([a-z0-9-]+)\.amazonaws\.com$/;
const DOT = /^s3\.(.*?)\.amazonaws\.com$/;
const ELB = [/elb(.*?)\.amazonaws\.com$/, /elb(.*?)\.amazonaws\.com\.cn$/];

/** The host of `endpoint` (host, host:port or [v6]:port), without port or brackets. */
export function endpointHost(endpoint: string): string {
  const v6 = /^\[([^\]]+)\]/.exec(endpoint);
  if (v6 !== null) return v6[1]!;
  return endpoint.replace(/:\d+$/, '');
}

/** minio's GetRegionFromURL: the AWS region an Amazon S3 host names, or ''. */
export function regionFromHost(host: string): string {
  if (host === 's3-external-1.amazonaws.com') return '';
  if (ELB.some((r) => r.test(host))) return '';
  for (const r of AMAZON_REGION_HOSTS) {
    const m = r.exec(host);
    if (m !== null) return m[1]!;
  }
  const o = OUTPOSTS.exec(host);
  if (o !== null) return o[2]!;
  const d = DOT.exec(host);
  if (d !== null) {
    const r = d[1]!;
    if (/^(xpress-|dualstack\.|control\.|website-)/.test(r)) return '';
    return r;
  }
  return '';
}

/** minio's IsAmazonEndpoint. */
export function isAmazonHost(host: string): boolean {
  if (OUTPOSTS.test(host)) return false;
  return host === 's3-external-1.amazonaws.com' || host === 's3.amazonaws.com' || regionFromHost(host) !== '';
}

/** FIPS and PrivateLink hosts: minio keeps them as written rather than choosing a regional host. */
export function isPinnedAmazonHost(host: string): boolean {
  return /^s3-fips\./.test(host) || /\.vpce\.amazonaws\.com$/.test(host);
}

/**
 * Whether requests go virtual-hosted style (`bucket.host/key`) rather than
 * path style (`host/bucket/key`). `auto` is minio's IsVirtualHostSupported:
 * virtual-hosted for Amazon S3, Google Cloud Storage and Aliyun OSS hosts,
 * except a bucket with a dot over https (its name would break the
 * certificate's wildcard); path style for every other store (Ceph, MinIO,
 * IP addresses, localhost).
 */
export function useVirtualHost(lookup: 'auto' | 'virtual-hosted' | 'path', host: string, bucket: string, secure: boolean): boolean {
  if (lookup === 'virtual-hosted') return true;
  if (lookup === 'path') return false;
  if (secure && bucket.includes('.')) return false;
  return isAmazonHost(host) || host === 'storage.googleapis.com' || host.endsWith('aliyuncs.com');
}
