/** The CLI's one parser: declared options and positionals, the words after --, and one-sentence usage errors. */
import * as assert from 'node:assert/strict';
import { parseCommandArgs } from '../../../../src/cli/support/args';
import { PaddockError } from '../../../../src/core/common/errors';

const spec = {
  usage: 'paddock demo ID [--json] [--tag T]... [-- COMMAND]',
  options: { json: { type: 'boolean' }, tag: { type: 'string', multiple: true } },
  positionals: ['ID'],
  rest: true,
} as const;

function usageMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof PaddockError && err.kind === 'usage', String(err));
    return err.message;
  }
  assert.fail('expected a usage error');
}

describe('cli argument parser', () => {
  it('gives values, named positionals and the words after the first --', () => {
    const parsed = parseCommandArgs(['abc123', '--tag', 'a', '--json', '--tag', 'b', '--', 'sh', '-c', '--json'], spec);
    assert.deepEqual({ ...parsed.values }, { json: true, tag: ['a', 'b'] });
    assert.deepEqual(parsed.positionals, ['abc123']);
    assert.deepEqual(parsed.rest, ['sh', '-c', '--json']);
    assert.equal(parseCommandArgs(['abc123'], spec).rest, undefined);
  });

  it('without rest, -- only ends the options (an id may start with a dash)', () => {
    const parsed = parseCommandArgs(['--', '-rf'], { usage: 'paddock show ID', options: {}, positionals: ['ID'] });
    assert.deepEqual(parsed.positionals, ['-rf']);
  });

  it('says every mistake in one clause followed by the usage', () => {
    assert.equal(usageMessage(() => parseCommandArgs(['--bogus', 'x'], spec)), `Unknown option '--bogus'; usage: ${spec.usage}`);
    assert.equal(usageMessage(() => parseCommandArgs(['x', '--tag'], spec)), `Option '--tag <value>' argument missing; usage: ${spec.usage}`);
    assert.equal(usageMessage(() => parseCommandArgs(['x', '--json=yes'], spec)), `Option '--json' does not take an argument; usage: ${spec.usage}`);
    assert.equal(usageMessage(() => parseCommandArgs(['x', '--tag', '-1'], spec)), `Option '--tag' needs a value; one starting with '-' is written --tag=VALUE; usage: ${spec.usage}`);
    assert.equal(usageMessage(() => parseCommandArgs([], spec)), `Missing ID; usage: ${spec.usage}`);
    assert.equal(usageMessage(() => parseCommandArgs(['x', 'y'], spec)), `Unexpected argument 'y'; usage: ${spec.usage}`);
    assert.equal(parseCommandArgs(['x'], spec).bad('No command after --').message, `No command after --; usage: ${spec.usage}`);
  });

  it('refuses an empty value of an option naming a folder, and only of those (bug 110)', () => {
    const folders = { usage: 'paddock demo [--repo DIR] [--title T]', options: { repo: { type: 'string' }, title: { type: 'string' } }, positionals: [], folders: ['repo'] } as const;
    assert.equal(usageMessage(() => parseCommandArgs(['--repo', ''], folders)), `--repo needs a folder, not an empty string; usage: ${folders.usage}`);
    assert.equal(usageMessage(() => parseCommandArgs(['--repo='], folders)), `--repo needs a folder, not an empty string; usage: ${folders.usage}`);
    assert.equal(parseCommandArgs(['--repo', ' x'], folders).values.repo, ' x');
    assert.equal(parseCommandArgs(['--title', ''], folders).values.title, '');
  });
});
