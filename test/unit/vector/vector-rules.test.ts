import { expect } from 'chai';
import type { PayloadFilter } from '../../../domain/ports/vector-store.js';
import {
  assertCollectionName,
  assertFilter,
  assertList,
  assertSearch,
  assertSpec,
  firstWrongLength,
  matchesFilter,
  MAX_PAYLOAD_BYTES,
  normalisePayload,
  preparePoints,
  RESERVED_PAYLOAD_KEY,
} from '../../../domain/vector/vector-rules.js';
import { validationCases } from '../../support/validation-cases.js';

const point = (id: string, payload: Record<string, unknown> = {}) => ({ id, vector: [0.1, 0.2], payload });

describe('vector: the rules every vector store applies before any I/O', () => {
  describe('collections (their names are file names in the embedded store)', () =>
    validationCases([
      ['a name', () => assertCollectionName('org_patterns-1')],
      ['a name stepping up a folder', () => assertCollectionName('../x'), /Invalid collection name/],
      ['a name starting with a dot', () => assertCollectionName('.hidden'), /Invalid collection name/],
      ['a name of 65 characters', () => assertCollectionName('a'.repeat(65)), /Invalid collection name/],
      ['cosine at 384 dimensions', () => assertSpec({ dimension: 384, distance: 'cosine' })],
      ['a fractional dimension', () => assertSpec({ dimension: 1.5, distance: 'cosine' }), /dimension/],
      ['another distance', () => assertSpec({ dimension: 3, distance: 'dot' } as never), /only cosine/],
    ]));

  describe('points', () =>
    validationCases([
      ['a batch', () => preparePoints([point('a'), point('b')])],
      ['an id used twice in one batch', () => preparePoints([point('a'), point('a')]), /Duplicate point id in one batch: a/],
      ['an empty id', () => preparePoints([point('')]), /Invalid point id/],
      ['a vector with NaN', () => preparePoints([{ ...point('a'), vector: [NaN] }]), /element 0 is not a finite number/],
      ['a payload with the reserved key', () => preparePoints([point('a', { [RESERVED_PAYLOAD_KEY]: 'x' })]), /is reserved/],
      ['a payload past its bound', () => normalisePayload({ big: 'x'.repeat(MAX_PAYLOAD_BYTES) }), /larger than/],
      ['a payload that is a list', () => normalisePayload([] as never), /a JSON object is required/],
      ['a payload that cannot be JSON', () => normalisePayload({ n: 1n } as never), /cannot be serialised/],
    ]));

  it('a payload is stored as JSON carries it', () => {
    const when = new Date('2026-12-03T00:00:00Z');
    expect(normalisePayload({ when, skip: undefined, nested: { a: [1] } } as never)).to.deep.equal({ when: '2026-12-03T00:00:00.000Z', nested: { a: [1] } });
  });

  it('firstWrongLength names the first vector of another length', () => {
    expect(firstWrongLength([[1, 2], [1, 2, 3], [1]], 2)).to.equal(3);
    expect(firstWrongLength([[1, 2]], 2)).to.equal(undefined);
  });

  describe('queries and filters', () =>
    validationCases([
      ['a search', () => assertSearch({ vector: [0.1], limit: 10, scoreThreshold: 0.5, filter: { must: [{ key: 'dataType', equals: 'pattern' }] } })],
      ['a limit of 1001', () => assertSearch({ vector: [0.1], limit: 1001 }), /Invalid limit/],
      ['an infinite threshold', () => assertSearch({ vector: [0.1], limit: 1, scoreThreshold: Infinity }), /scoreThreshold/],
      ['a list with a cursor', () => assertList({ limit: 10, cursor: 'abc' })],
      ['an empty cursor', () => assertList({ limit: 10, cursor: '' }), /Invalid cursor/],
      ['a key with an empty segment', () => assertFilter({ must: [{ key: 'a..b', equals: 1 }] }), /dot-separated payload key/],
      ['a filter on the reserved key', () => assertFilter({ mustNot: [{ key: `${RESERVED_PAYLOAD_KEY}.x`, equals: 'a' }] }), /is reserved/],
      ['equals with a fractional number', () => assertFilter({ must: [{ key: 'n', equals: 1.5 }] }), /equals takes/],
      ['anyOf mixing strings and numbers', () => assertFilter({ must: [{ key: 'n', anyOf: ['a', 1] }] } as never), /anyOf takes/],
      ['an empty anyOf', () => assertFilter({ must: [{ key: 'n', anyOf: [] }] }), /anyOf takes/],
      ['a condition with neither', () => assertFilter({ must: [{ key: 'n' }] } as never), /either equals or anyOf/],
      ['65 conditions', () => assertFilter({ must: Array.from({ length: 65 }, () => ({ key: 'a', equals: 1 })) }), /at most 64/],
    ]));

  describe('matchesFilter: must and mustNot as Qdrant reads them', () => {
    const payload = { dataType: 'pattern', tags: ['web', 'hpa'], meta: { team: 'platform' }, n: 0 };
    const table: [string, PayloadFilter | undefined, boolean][] = [
      ['no filter', undefined, true],
      ['equals', { must: [{ key: 'dataType', equals: 'pattern' }] }, true],
      ['equals another value', { must: [{ key: 'dataType', equals: 'policy' }] }, false],
      ['a list holding the value', { must: [{ key: 'tags', equals: 'hpa' }] }, true],
      ['a nested key', { must: [{ key: 'meta.team', anyOf: ['platform', 'web'] }] }, true],
      ['zero is a value', { must: [{ key: 'n', equals: 0 }] }, true],
      ['a missing key never matches', { must: [{ key: 'absent', equals: 'x' }] }, false],
      ['mustNot excludes', { mustNot: [{ key: 'tags', equals: 'web' }] }, false],
      ['mustNot on a missing key keeps it', { mustNot: [{ key: 'absent', equals: 'x' }] }, true],
      // types are compared exactly: the string "0" is not 0
      ['a number as a string', { must: [{ key: 'n', equals: '0' }] }, false],
    ];
    for (const [name, filter, matches] of table) it(`${name}: ${matches}`, () => expect(matchesFilter(payload, filter)).to.equal(matches));
  });
});
