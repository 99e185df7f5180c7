/** Which repositories a trusted VS Code workspace vouches for (the setup's, teardown's and check's rule). */
import * as assert from 'node:assert/strict';
import { trustedWorkspaceHolds } from '../../../../src/core/repoConfig/trustedCommands';

describe('trusted workspace folders', () => {
  it('vouch for the repository they are, lie in, or hold, and for no other (bug 56)', () => {
    assert.equal(trustedWorkspaceHolds('/code/app', ['/code/app']), true);
    assert.equal(trustedWorkspaceHolds('/code/app', ['/code/app/packages/web']), true, 'a package of the repository');
    assert.equal(trustedWorkspaceHolds('/code/app', ['/code']), true, 'a folder holding it');
    assert.equal(trustedWorkspaceHolds('/code/app', ['/code/other']), false, 'a sibling');
    assert.equal(trustedWorkspaceHolds('/code/app', ['/code/app-fork']), false, 'a name that only begins alike');
    assert.equal(trustedWorkspaceHolds('/code/app', ['/code/app.wt/x']), false);
    assert.equal(trustedWorkspaceHolds('/code/app', []), false, 'an untrusted workspace, or the CLI');
    assert.equal(trustedWorkspaceHolds('/code/app', ['/elsewhere', '/code/app/src']), true);
  });
});
