import { hash } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import { STATIC_TOKEN_CALLER, type Caller } from '../../domain/auth/caller.js';
import { NO_PEOPLE, type PeopleDirectory } from '../../domain/auth/people.js';
import type { RoleMapping } from '../../domain/auth/role-mapping.js';
import type { Logger } from '../../domain/ports/logger.js';
import { ConfigError } from '../config/env-parsers.js';
import { parseTokensFile, readTokensFile, TokensFileError, type TokensFileReading } from './tokens-file.js';

/** Hex SHA-256 of a token: how static tokens are looked up (the file holds only digests). */
export function tokenDigest(token: string): string {
  // the one-shot form: no Hash object per request on the gate's path
  return hash('sha256', token, 'hex');
}

/**
 * The static tokens: `SVC_AUTH_TOKEN` (the admin) and the named tokens of
 * `SVC_AUTH_TOKENS_FILE`, looked up by the SHA-256 of the presented token
 * (so nothing is compared byte by byte with a secret). The file is watched
 * (stat polling, which also sees a ConfigMap's symlink swap) and re-read when
 * it changes; a re-read fails closed: the lines that do not parse (and a file
 * that cannot be read) give no token, the others are in force; the errors
 * are logged.
 */
export class StaticTokens {
  private fromFile = new Map<string, Caller>();
  private readonly adminDigest?: string;
  /** Bumped on every successful re-read (the Authenticator's `epoch`). */
  epoch = 0;
  private listener?: (now: Stats, before: Stats) => void;

  constructor(
    adminToken: string | undefined,
    private readonly file: string | undefined,
    private readonly roles: RoleMapping,
    private readonly logger: Logger,
    /** SVC_PEOPLE_FILE: the person each named token is. */
    private readonly people: PeopleDirectory = NO_PEOPLE,
  ) {
    this.adminDigest = adminToken === undefined ? undefined : tokenDigest(adminToken);
    if (file !== undefined) {
      try {
        this.fromFile = this.read(file);
      } catch (err) {
        throw new ConfigError('SVC_AUTH_TOKENS_FILE', `(${file}): ${(err as Error).message}`);
      }
    }
  }

  /** The caller of a static token, by its `tokenDigest`, or undefined. */
  lookup(digest: string): Caller | undefined {
    if (digest === this.adminDigest) return STATIC_TOKEN_CALLER;
    return this.fromFile.get(digest);
  }

  /** Re-reads the file whenever its size or modification time changes, polling every `intervalMs`. */
  watch(intervalMs: number): void {
    const file = this.file;
    if (file === undefined || this.listener) return;
    this.listener = (now: Stats, before: Stats) => {
      if (now.mtimeMs === before.mtimeMs && now.size === before.size && now.ino === before.ino) return;
      // fails closed: a line that no longer parses (or a file that cannot be read) takes its tokens away
      const { callers, problems } = this.reread(file);
      this.fromFile = callers;
      this.epoch++;
      if (problems.length)
        this.logger.error('tokens file re-read with errors: the lines that do not parse are left out, their tokens refused', {
          file,
          tokens: callers.size,
          errors: problems.slice(0, 20),
        });
      else this.logger.info('tokens file re-read', { file, tokens: callers.size });
    };
    watchFile(file, { interval: intervalMs, persistent: false }, this.listener);
  }

  stop(): void {
    if (this.file !== undefined && this.listener) unwatchFile(this.file, this.listener);
    this.listener = undefined;
  }

  private reread(file: string): TokensFileReading {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      return { callers: new Map(), problems: [`cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}): no tokens-file token is accepted`] };
    }
    return readTokensFile(text, this.roles, this.people);
  }

  private read(file: string): Map<string, Caller> {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new TokensFileError(`cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    return parseTokensFile(text, this.roles, this.people);
  }
}
