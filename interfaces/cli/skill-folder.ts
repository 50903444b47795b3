import { lstat, opendir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from './cli-errors.js';

/** A regular file found in a skill folder, not read yet. */
export interface FolderEntry {
  /** Relative to the folder, `/`-separated. */
  path: string;
  absolute: string;
  /** Bytes, from lstat. */
  size: number;
  /** Permission bits. */
  mode: number;
}

export interface FolderListing {
  files: FolderEntry[];
  totalBytes: number;
  /** Entries left out on purpose (symbolic links, sockets...), with why; dotfiles are not listed. */
  skipped: { path: string; reason: string }[];
}

export interface FolderLimits {
  maxFiles: number;
  maxBytes: number;
}

/**
 * Lists the files of a local skill folder, depth first in name order, leaving
 * out every file or directory whose name starts with a dot. Symbolic links are
 * skipped, never followed: a link could point anywhere on this machine. The
 * walk stops as soon as a limit is passed, so a huge folder is refused without
 * being read.
 */
export async function listSkillFolder(root: string, limits: FolderLimits): Promise<FolderListing> {
  const info = await lstat(root).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`${root} is not a directory`);
  const listing: FolderListing = { files: [], totalBytes: 0, skipped: [] };
  await walk(root, '', listing, limits);
  if (listing.files.length === 0) throw new UsageError(`${root} holds no files to upload (dotfiles are skipped)`);
  return listing;
}

async function walk(absDir: string, relDir: string, listing: FolderListing, limits: FolderLimits): Promise<void> {
  const names: { name: string; isDir: boolean }[] = [];
  for await (const entry of await opendir(absDir)) {
    if (!entry.name.startsWith('.')) names.push({ name: entry.name, isDir: entry.isDirectory() });
  }
  names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { name, isDir } of names) {
    const absolute = path.join(absDir, name);
    const rel = relDir ? `${relDir}/${name}` : name;
    if (isDir) {
      await walk(absolute, rel, listing, limits);
      continue;
    }
    const st = await lstat(absolute);
    if (st.isSymbolicLink()) {
      listing.skipped.push({ path: rel, reason: 'symbolic link (not followed)' });
      continue;
    }
    if (!st.isFile()) {
      listing.skipped.push({ path: rel, reason: 'not a regular file' });
      continue;
    }
    listing.files.push({ path: rel, absolute, size: st.size, mode: st.mode & 0o777 });
    listing.totalBytes += st.size;
    if (listing.files.length > limits.maxFiles) {
      throw new UsageError(
        `Too many files: more than ${limits.maxFiles} in this folder (the server accepts at most ${limits.maxFiles} per upload); nothing was sent`,
      );
    }
    if (listing.totalBytes > limits.maxBytes) {
      throw new UsageError(
        `Folder too large: more than ${limits.maxBytes} bytes (${limits.maxBytes / 1024} KiB) of files, reached at ${rel}; the server accepts at most that per upload; nothing was sent`,
      );
    }
  }
}

/** A file as the upload manifest carries it. */
export interface ManifestFile {
  path: string;
  content: string;
  mode: string;
}

/** Reads and base64-encodes the listed files, reporting each one done. */
export async function readSkillFiles(listing: FolderListing, onFile: (done: number, bytes: number) => void): Promise<ManifestFile[]> {
  const out: ManifestFile[] = [];
  let bytes = 0;
  for (const f of listing.files) {
    const content = await readFile(f.absolute);
    bytes += content.length;
    out.push({ path: f.path, content: content.toString('base64'), mode: f.mode.toString(8).padStart(4, '0') });
    onFile(out.length, bytes);
  }
  return out;
}
