/**
 * Just enough Markdown for the documentation tests: fenced blocks with the
 * `<!-- readme-test: KIND ... -->` marker that tags them, relative links,
 * and the anchors GitHub gives headings.
 */

/** A fenced block and the marker on the line just before it, if any. */
export interface FencedBlock {
  /** The info string after the opening fence (`sh`, `yaml`, ...). */
  readonly lang: string;
  readonly text: string;
  /** The marker's kind (`run`, `server`, ...), or undefined when untagged. */
  readonly kind: string | undefined;
  /** The marker's `expect="..."`: text the command's output must contain. */
  readonly expect: string | undefined;
  /** 1-based line of the opening fence. */
  readonly line: number;
}

const MARKER = /^<!-- readme-test: ([a-z-]+)(?: expect="([^"]*)")? -->$/;

/** Every fenced block of `markdown`, in order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
    if (end < 0) throw new Error(`unclosed fence at line ${i + 1}`);
    const marker = i > 0 ? MARKER.exec(lines[i - 1]!) : null;
    blocks.push({ lang: open[1]!, text: lines.slice(i + 1, end).join('\n'), kind: marker?.[1], expect: marker?.[2], line: i + 1 });
    i = end;
  }
  return blocks;
}

/** `markdown` with its fenced blocks blanked out (links and headings inside code are not links or headings). */
export function withoutCode(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
}

/** The targets of the inline links `[text](target)` outside code. */
export function linkTargets(markdown: string): string[] {
  return [...withoutCode(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingAnchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors of every heading of `markdown`. */
export function anchors(markdown: string): Set<string> {
  return new Set([...withoutCode(markdown).matchAll(/^#{1,6} (.+)$/gm)].map((m) => headingAnchor(m[1]!)));
}
