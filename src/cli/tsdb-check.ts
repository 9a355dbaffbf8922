import { parseArgs } from 'node:util';
import { checkDataDir, type DataDirCheck } from '../db/check.js';
import { UsageError } from '../config/usage-error.js';

export const tsdbCheckHelp = `Usage: strata tsdb check DATA_DIR [--format text|json]

Reads a Strata data directory without changing it (and without its lock, so
a running server may own it): the write-ahead log and its checkpoint, the
head chunk files, every block (meta.json, each series entry of the index,
each chunk's checksum), the quarantine, and stray files. Reports what is
damaged and what a start would do about it.

Exit status: 0 when nothing is damaged, 1 when something is, 2 on a usage
error.

Flags:
  --format text|json   the report's form (default text)
  -h, --help           this help`;

/** Runs `strata tsdb check`; returns the exit status. */
export async function tsdbCheck(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { format: { type: 'string', default: 'text' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help === true) {
    console.log(tsdbCheckHelp);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('tsdb check takes one data directory (see strata tsdb check --help)');
  if (values.format !== 'text' && values.format !== 'json') throw new UsageError(`--format: '${values.format}' is neither text nor json`);
  let report: DataDirCheck;
  try {
    report = await checkDataDir(positionals[0]!);
  } catch (err) {
    console.error(`strata: cannot check ${positionals[0]}: ${(err as Error).message}`);
    return 1;
  }
  console.log(values.format === 'json' ? JSON.stringify(report, null, 2) : describe(report));
  return report.damaged ? 1 : 0;
}

function describe(r: DataDirCheck): string {
  const lines: string[] = [`data directory ${r.dataDir}: ${r.damaged ? 'DAMAGED' : 'OK'}`, ''];
  const w = r.wal;
  lines.push(`WAL: ${w.segments} segments${w.checkpoint === undefined ? '' : ` after checkpoint ${w.checkpoint}`}, ${w.records} records readable`);
  for (const d of w.damaged) lines.push(`  DAMAGED ${d.file} at byte ${d.offset} (${d.bytes} bytes skipped at start): ${d.reason}`);
  if (w.torn !== undefined) lines.push(`  repaired at start: torn tail of ${w.torn.file} at byte ${w.torn.offset} (${w.torn.bytes} bytes cut)`);
  const c = r.headChunks;
  lines.push(`head chunk files: ${c.files} files, ${c.chunks} chunks readable`);
  for (const d of c.damaged) lines.push(`  DAMAGED ${d.file} at byte ${d.offset} (${d.bytes} bytes skipped at start): ${d.reason}`);
  if (c.tornTail !== undefined) lines.push(`  repaired at start: torn tail of ${c.tornTail.file} at byte ${c.tornTail.offset} (${c.tornTail.bytes} bytes cut)`);
  lines.push(`blocks: ${r.blocks.length}`);
  for (const b of r.blocks) {
    lines.push(b.ok
      ? `  ${b.ulid} OK [${new Date(b.minTime!).toISOString()}, ${new Date(b.maxTime!).toISOString()}) ${b.series} series, ${b.chunks} chunks, ${b.samples} samples`
      : `  ${b.ulid} DAMAGED: ${b.problem}${b.series === undefined ? ' (a start moves it to quarantine)' : ' (a start serves what it can read)'}`);
  }
  if (r.strayFiles.length > 0) lines.push(`stray entries in blocks/ (ignored): ${r.strayFiles.join(', ')}`);
  if (r.quarantine.length > 0) lines.push(`quarantine (moved aside by earlier starts): ${r.quarantine.join(', ')}`);
  return lines.join('\n');
}
