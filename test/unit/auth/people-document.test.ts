import { expect } from 'chai';
import { MAX_IDENTITIES_PER_PERSON, MAX_PEOPLE, peopleFromDocument, TOKENS_FILE_NAME } from '../../../domain/auth/people-document.js';

const ISSUER = 'https://login.example';
const alice = { name: 'Alice Smith', tokens: ['alice'], oidc: [{ issuer: ISSUER, subject: 'u-1' }], emails: ['alice@example.com'] };
const read = (...people: unknown[]) => peopleFromDocument({ people }, ISSUER);

describe('auth: the people file', () => {
  it('reads each person with their identities, missing lists as empty', () => {
    expect(read(alice, { name: 'bob', emails: ['bob@example.com'] })).to.deep.equal([
      alice,
      { name: 'bob', tokens: [], oidc: [], emails: ['bob@example.com'] },
    ]);
  });

  const refused: [string, unknown, RegExp][] = [
    ['a document with another key', { people: [], admins: [] }, /one key, people/],
    ['a list at the top', [alice], /one key, people/],
    ['people that are not a list', { people: { alice } }, /one key, people/],
    ['a typo in a key (an identity left unlinked)', { people: [{ ...alice, email: ['a@b.c'] }] }, /entry 1 \(Alice Smith\): unknown key "email"/],
    ['a person named with a newline', { people: [{ ...alice, name: 'alice\nbob' }] }, /name must be/],
    ['a name ending in a space', { people: [{ ...alice, name: 'alice ' }] }, /name must be/],
    ['a person with no identity', { people: [{ name: 'carol' }] }, /entry 1 \(carol\): names no identity/],
    ['a tokens-file name with a slash', { people: [{ ...alice, tokens: ['a/b'] }] }, /tokens\[0\] must be a tokens-file name/],
    ['an address in another script', { people: [{ ...alice, emails: ['аlice@example.com'] }] }, /emails\[0\] must be an email address of ASCII/],
    ['an address without a domain dot', { people: [{ ...alice, emails: ['alice@localhost'] }] }, /emails\[0\]/],
    ['tokens that are not a list', { people: [{ ...alice, tokens: 'alice' }] }, /tokens must be a list/],
    ['an OIDC entry with another key', { people: [{ ...alice, oidc: [{ issuer: ISSUER, subject: 'u', sub: 'x' }] }] }, /oidc\[0\] must be \{issuer, subject\}/],
    ['an OIDC subject with a control character', { people: [{ ...alice, oidc: [{ issuer: ISSUER, subject: 'u\u0000' }] }] }, /oidc\[0\]\.subject/],
    ['an OIDC subject with a blank end', { people: [{ ...alice, oidc: [{ issuer: ISSUER, subject: ' u' }] }] }, /oidc\[0\]\.subject/],
    ['an issuer svc never accepts', { people: [{ ...alice, oidc: [{ issuer: 'https://evil.example', subject: 'u' }] }] }, /is not SVC_OIDC_ISSUER/],
    [
      'two people of one name',
      { people: [alice, { name: 'alice smith', tokens: ['as'] }] },
      /entry 2 \(alice smith\): the name alice smith is already Alice Smith's/,
    ],
    // names are compared as people read them: an invisible character does not make another person
    [
      'a name differing by a zero-width space',
      {
        people: [
          { name: 'bob', tokens: ['b1'] },
          { name: 'bob\u200b', tokens: ['b2'] },
        ],
      },
      /name must be|already/,
    ],
    ['one token for two people', { people: [alice, { name: 'bob', tokens: ['alice'] }] }, /the tokens-file name alice is listed for Alice Smith too/],
    [
      'one address for two people, in another case',
      { people: [alice, { name: 'bob', emails: ['ALICE@example.com'] }] },
      /the address ALICE@example\.com is listed for Alice Smith too/,
    ],
    ['one OIDC subject twice for one person', { people: [{ ...alice, oidc: [alice.oidc[0], alice.oidc[0]] }] }, /the OIDC subject u-1 is listed twice/],
  ];
  for (const [name, doc, why] of refused) it(`refuses ${name}`, () => expect(() => peopleFromDocument(doc, ISSUER)).to.throw(why));

  it('accepts any issuer when svc has none configured', () => {
    const other = { name: 'dave', oidc: [{ issuer: 'https://elsewhere.example', subject: 'd' }] };
    expect(peopleFromDocument({ people: [other] }, undefined)[0]!.oidc).to.deep.equal(other.oidc);
  });

  it('bounds the people and the identities of one person', () => {
    const many = Array.from({ length: MAX_PEOPLE + 1 }, (_, i) => ({ name: `p${i}`, tokens: [`t${i}`] }));
    expect(() => peopleFromDocument({ people: many }, ISSUER)).to.throw(`lists ${MAX_PEOPLE + 1} people; at most ${MAX_PEOPLE}`);
    const tokens = Array.from({ length: MAX_IDENTITIES_PER_PERSON + 1 }, (_, i) => `t${i}`);
    expect(() => read({ name: 'eve', tokens })).to.throw(`names ${MAX_IDENTITIES_PER_PERSON + 1} identities`);
  });

  it('a tokens-file name: a letter or digit first, 64 characters at most', () => {
    expect(TOKENS_FILE_NAME.test('alice@example.com')).to.equal(true);
    expect(TOKENS_FILE_NAME.test('.alice')).to.equal(false);
    expect(TOKENS_FILE_NAME.test('a'.repeat(65))).to.equal(false);
  });
});
