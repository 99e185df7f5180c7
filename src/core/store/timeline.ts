/**
 * `timeline.jsonl`: one JSON line per event, appended. A writer killed mid-line
 * leaves a torn line; the next append starts on a fresh line and readers skip
 * whatever does not parse, so one torn write costs at most itself.
 */
import * as fs from 'node:fs';
import { FILE_MODE } from './durable';
import { TimelineEntry } from './schema';
import { failure } from '../common/errors';
import { openRegularSync, readRegularText } from './regularFile';
import { timelineEntryOf } from './timelineCheck';

export function appendTimelineLine(file: string, entry: TimelineEntry): void {
  const checked = timelineEntryOf(entry);
  if (!checked.ok) throw failure(`The timeline entry is invalid: ${checked.reason}.`);
  const line = `${JSON.stringify(checked.entry)}\n`;
  const { fd, size } = openRegularSync(file, 'a+', FILE_MODE);
  try {
    let prefix = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      fs.readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = '\n';
    }
    fs.writeSync(fd, prefix + line);
  } finally {
    fs.closeSync(fd);
  }
}

export async function readTimelineFile(file: string): Promise<TimelineEntry[]> {
  let text: string;
  try {
    text = (await readRegularText(file)) ?? '';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const lines = text.split('\n');
  // The last element is '' after a complete final line, or a torn line: either way not an entry.
  lines.pop();
  const entries: TimelineEntry[] = [];
  for (const line of lines) {
    if (!line) continue;
    try {
      const checked = timelineEntryOf(JSON.parse(line));
      if (checked.ok) entries.push(checked.entry);
    } catch {
      // A torn line followed by later appends: skip it.
    }
  }
  return entries;
}
