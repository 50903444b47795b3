import { bytesOf, manifestOf, type ClientFile } from './upload-manifests.js';

/** Small deterministic PRNG (mulberry32), so a failing run is replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type FuzzBody = { json: unknown } | { raw: Buffer };

const NASTY_PATHS = [
  '..',
  '../x',
  'a/../../x',
  '..\\x',
  '/abs',
  '\\abs',
  '\\\\unc\\share',
  'C:\\x',
  'c:x',
  'a\0b',
  '\0',
  '',
  '.',
  './',
  'a//',
  'a/./.',
  'a\nb',
  'a\u007f',
  'x'.repeat(1025),
  '__proto__',
  'constructor',
  'SKILL.md',
  './SKILL.md',
  'skills//a/SKILL.md',
  'ü/ß.md',
  '😀/x.md',
  '%2e%2e/x',
  '．．/x',
  'a/b/c/d/e/f/g.md',
  ' spaced .md',
  'a\\b',
];
const NASTY_SOURCES: unknown[] = [
  '',
  'x',
  'local:',
  'local:a b',
  `local:${'l'.repeat(3000)}`,
  'https://u:p4ss-w0rd@h.example/r.git',
  'ftp://h/x',
  'http://',
  7,
  null,
  {},
  [],
  'git@host:org/r.git',
  'https://h.example/r?token=abc123',
  'local:\u0000',
  'local:ok',
  'LOCAL:x',
];
const NASTY_MODES: unknown[] = ['4755', '1777', '0644', '777', 'abc', '', '0o7777', '100755', '99', -1, 493, null, {}, [], '0x1ff', '7'.repeat(30)];
const IDS = ['local:f1', 'local:f2', 'local:f3', 'https://git.example/org/skills.git', 'git@git.example:org/s.git', 'local:f4'];

/** An own enumerable property even for `__proto__`, so JSON.stringify writes the key. */
function setOwn(obj: object, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, configurable: true, writable: true });
}

export class ManifestFuzzer {
  private readonly r: () => number;
  /** Recent valid manifests, resent as they were to drive the `unchanged` transition. */
  private readonly recent: unknown[] = [];
  constructor(seed: number) {
    this.r = prng(seed);
  }

  private int(n: number): number {
    return Math.floor(this.r() * n);
  }
  private pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }

  private randomJson(depth = 0): unknown {
    switch (this.int(depth > 3 ? 4 : 7)) {
      case 0:
        return this.r() * 1e6 - 5e5;
      case 1:
        return this.pick([true, false, null]);
      case 2:
        return 'x'.repeat(this.int(20));
      case 3:
        return this.pick(NASTY_PATHS);
      case 4:
        return Array.from({ length: this.int(5) }, () => this.randomJson(depth + 1));
      case 5:
        return Object.fromEntries(
          Array.from({ length: this.int(4) }, () => [
            this.pick(['source', 'files', 'path', 'content', 'mode', 'contentHash', '__proto__', 'k']),
            this.randomJson(depth + 1),
          ]),
        );
      default:
        return { source: this.pick(IDS), files: this.randomJson(depth + 1) };
    }
  }

  private validFiles(): ClientFile[] {
    const n = 1 + this.int(this.r() < 0.05 ? 100 : 6);
    const big = this.r() < 0.05;
    return Array.from({ length: n }, (_, i) => ({
      path: `${this.pick(['', 'skills/', 'skills/s1/', './x/', 'a\\b\\'])}f${i}-${this.int(1000)}.md`,
      bytes: bytesOf(big ? Math.floor(262144 / n) : this.int(300), this.int(1e9) + 1),
      mode: this.r() < 0.3 ? undefined : this.pick(['0644', '0755', '4755', '1777', '777', 'abc']),
    }));
  }

  private mutate(m: Record<string, any>): void {
    const files = m.files as Record<string, unknown>[];
    const f = files[this.int(files.length)];
    switch (this.int(14)) {
      case 0:
        delete m[this.pick(['source', 'files', 'contentHash'])];
        break;
      case 1:
        m.source = this.pick(NASTY_SOURCES);
        break;
      case 2:
        m.contentHash = this.pick([`sha256:${'ab'.repeat(32)}`, 'sha256:xyz', 'md5:00', 42, '', `sha256:${'A'.repeat(64)}`]);
        break;
      case 3:
        m.files = this.pick([[], {}, 'files', null, [null], [1, 2]]);
        break;
      case 4:
        m.files = Array.from({ length: 101 + this.int(20) }, (_, i) => ({ path: `p${i}`, content: '' }));
        break;
      case 5:
        files.push({ ...f });
        break;
      case 6:
        f.path = this.pick(NASTY_PATHS);
        break;
      case 7: {
        const c = String(f.content);
        const at = this.int(c.length + 1);
        f.content = c.slice(0, at) + this.pick(['!', '\n', ' ', '=', '-', '_', '*', 'ä', '']) + c.slice(at + (this.r() < 0.5 ? 1 : 0));
        break;
      }
      case 8:
        f.content = this.pick([null, 5, {}, [], true]);
        break;
      case 9:
        f.mode = this.pick(NASTY_MODES);
        break;
      case 10:
        setOwn(m, this.pick(['extra', '__proto__', 'constructor', 'toString']), this.randomJson());
        break;
      case 11:
        setOwn(f, this.pick(['extra', '__proto__', 'encoding']), 'x');
        break;
      case 12:
        files.push({ path: `big-${this.int(1e6)}`, content: bytesOf(200000 + this.int(80000)).toString('base64') });
        break;
      default:
        files[this.int(files.length)] = this.randomJson() as Record<string, unknown>;
    }
  }

  /** One request body: mostly mutated valid manifests, some valid ones, some random JSON, some raw garbage. */
  next(): FuzzBody {
    const roll = this.r();
    if (roll < 0.04) return { raw: Buffer.from(bytesOf(this.int(2000), this.int(1e9) + 1)) };
    if (roll < 0.06) return { raw: Buffer.from('['.repeat(20000 + this.int(20000))) };
    if (roll < 0.07) return { raw: Buffer.from(`{"source":"local:f1","files":[${'{"path":"p","content":""},'.repeat(this.int(5))}`) };
    if (roll < 0.15) return { json: this.randomJson() };
    if (roll < 0.25 && this.recent.length > 0) return { json: this.pick(this.recent) };
    const m = manifestOf(this.pick(IDS), this.validFiles(), this.r() < 0.6) as unknown as Record<string, unknown>;
    if (roll < 0.4) {
      if (m.contentHash === undefined) return { json: m };
      this.recent.push(structuredClone(m));
      if (this.recent.length > 8) this.recent.shift();
      return { json: m };
    }
    const mutations = 1 + this.int(3);
    for (let i = 0; i < mutations; i++) {
      try {
        this.mutate(m as Record<string, any>);
      } catch {
        // a previous mutation removed what this one edits: the manifest stays as it is
      }
    }
    return { json: m };
  }
}
