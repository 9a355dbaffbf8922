/**
 * The default of --http-max-body-bytes: Thanos Receive and Prometheus take
 * remote-write bodies of this size; a Prometheus sends far smaller ones
 * (2000 samples a request by default: tens of KB compressed).
 */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
