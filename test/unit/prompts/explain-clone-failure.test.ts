import { expect } from 'chai';
import { explainCloneFailure } from '../../../application/prompts/explain-clone-failure.js';
import { PromptsSourceError } from '../../../domain/errors.js';
import { GitFetchError } from '../../../domain/ports/git-fetcher.js';
import { CredentialWithheldError } from '../../../domain/prompts/clone-credential.js';
import { validateRepoOverride } from '../../../domain/prompts/repo-override.js';

const location = validateRepoOverride({ repo: 'https://git.corp.example/team/prompts.git' })!;
const authRequired = new GitFetchError('git answered 401', 401, true);

describe('application/prompts/explain-clone-failure: the remedy for a clone that needed a credential', () => {
  it('says to send a token or allow the host when the host rules withheld the server token', () => {
    const e = explainCloneFailure(authRequired, location, { kind: 'none', reason: 'host-not-allowlisted' }, true);
    expect(e).to.be.instanceOf(CredentialWithheldError);
    expect((e as Error).message)
      .to.contain('git answered 401')
      .and.contain('X-Svc-Git-Token')
      .and.contain('SVC_ALLOWED_REPO_HOSTS');
    expect((e as CredentialWithheldError).source).to.equal(location.source);
  });

  it('says to use https when the URL is plain http', () => {
    const e = explainCloneFailure(authRequired, location, { kind: 'none', reason: 'plain-http' }, true);
    expect((e as Error).message).to.contain('only ever sent over https://');
  });

  it('says to set SVC_GIT_TOKEN, offering the header only for an override', () => {
    const override = explainCloneFailure(authRequired, location, { kind: 'none', reason: 'no-server-token' }, true) as Error;
    const configured = explainCloneFailure(authRequired, location, { kind: 'none', reason: 'no-server-token' }, false) as Error;
    expect(override).to.be.instanceOf(PromptsSourceError);
    expect(override.message).to.contain('Send a token in the X-Svc-Git-Token header');
    expect(configured.message).to.contain('Set SVC_GIT_TOKEN on the server.');
    expect(configured.message).to.not.contain('X-Svc-Git-Token');
  });

  it('passes any other failure through unchanged', () => {
    const notFound = new GitFetchError('git answered 404', 404, false);
    expect(explainCloneFailure(notFound, location, { kind: 'none', reason: 'no-server-token' }, true)).to.equal(notFound);
    expect(explainCloneFailure(authRequired, location, { kind: 'server', token: 't' }, false)).to.equal(authRequired);
    const other = new Error('x');
    expect(explainCloneFailure(other, location, { kind: 'none', reason: 'plain-http' }, true)).to.equal(other);
  });
});
