/**
 * A series of the head, as the host sees it. Its labels (canonical bytes),
 * open chunk and append state live in module memory at `slot`
 * (Head.labelsOf decodes the labels when a read needs them: an array of
 * them on every series cost 190 bytes a series); its closed chunks live in
 * chunk segment files, listed in `chunks` as triples [ref, minT, maxT] in
 * time order (one flat array of numbers: no object per chunk).
 */
export interface Series {
  readonly id: number;
  /** Module memory address of the series slot; fixed for the series' life. */
  readonly slot: number;
  chunks: number[];
}

/**
 * The chunk list of a series with none yet, shared by all of them (32
 * bytes a series saved): frozen, so it is replaced, never pushed to
 * (addChunk in head-chunks.ts).
 */
export const NO_CHUNKS = Object.freeze([]) as unknown as number[];
