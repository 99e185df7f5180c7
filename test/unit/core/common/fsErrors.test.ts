/** Node's errno text in a sentence, said in words (bug 50), also when the call was on a descriptor and names no path (bug 112). */
import * as assert from 'node:assert/strict';
import { withoutErrnoText } from '../../../../src/core/common/fsErrors';

describe('errno text in words', () => {
  it('says an errno message that names a path as what could not be done to it', () => {
    assert.equal(withoutErrnoText("read failed: ENOTDIR: not a directory, open '/s/jobs/x'"), 'read failed: /s/jobs/x could not be opened: something on its path that should be a folder is a file');
    assert.equal(withoutErrnoText("EEXIST: file already exists, rename '/a' -> '/b'"), '/a (to /b) could not be put in place: something else is already in its place');
  });

  it('says one without a path (a write to stdout, a read of a descriptor) as its reason alone (bug 112)', () => {
    assert.equal(withoutErrnoText('could not write the output: ENOSPC: no space left on device, write'), 'could not write the output: the disk is full');
    assert.equal(withoutErrnoText('could not read the input: EIO: i/o error, read.'), 'could not read the input: the disk reported an input/output error.');
    assert.equal(withoutErrnoText("EACCES: permission denied, write; then EROFS: read-only file system, open '/x'"), "permission is denied; then /x could not be opened: the file system is read-only");
  });

  it('leaves text that only looks alike', () => {
    for (const text of ['EOF reached, write more', 'ENOSPC without a colon, write', 'see E2E: the tests, writes']) assert.equal(withoutErrnoText(text), text);
  });
});
