/**
 * Group commit's failure rules, on a real SQLite connection: a failed COMMIT fails every write
 * of its batch and publishes nothing; a job that throws fails alone; the next batch works.
 * (A deferred foreign key is the simplest way to make COMMIT itself fail.)
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { GroupCommit } from './group-commit.ts';
import { translateSqliteError } from './sqlite-errors.ts';
import { StorageError, type WatchEvent } from './types.ts';

it('group commit: one transaction per turn; a failed COMMIT rejects the whole batch', async () => {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  db.exec(`CREATE TABLE parent (id INTEGER PRIMARY KEY);
    CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);`);
  const published: WatchEvent[] = [];
  const commits: number[] = [];
  const gc = new GroupCommit({
    db,
    statements: { begin: db.prepare('BEGIN IMMEDIATE'), commit: db.prepare('COMMIT'), rollback: db.prepare('ROLLBACK') },
    onCommit: (events) => {
      commits.push(events.length);
      published.push(...events);
    },
    translate: translateSqliteError,
  });
  const insert = db.prepare<[number | null]>('INSERT INTO child (parent) VALUES (?)');
  const rows = db.prepare<[], number>('SELECT COUNT(*) FROM child').pluck();
  const job = (parent: number | null) => () => {
    const id = Number(insert.run(parent).lastInsertRowid);
    return { value: id, event: { type: 'create' as const, kv: { key: `/k/${id}`, value: '', createRevision: id, modRevision: id } } };
  };

  assert.deepEqual(await Promise.all([gc.submit(job(null)), gc.submit(job(null)), gc.submit(job(null))]), [1, 2, 3]);
  assert.deepEqual(commits, [3], 'three writes of one turn, one commit');

  const doomed = [gc.submit(job(null)), gc.submit(job(404)), gc.submit(job(null))];
  for (const p of doomed) await assert.rejects(p, (e) => e instanceof StorageError && /SQLITE_CONSTRAINT_FOREIGNKEY/.test(e.message));
  assert.equal(db.inTransaction, false);
  assert.equal(rows.get(), 3);
  assert.equal(published.length, 3, 'nothing published for the failed batch');

  const throwing = gc.submit(() => {
    throw new Error('bug in a job');
  });
  const fine = gc.submit(job(null));
  await assert.rejects(throwing, /bug in a job/);
  assert.equal(await fine, 4);
  assert.equal(rows.get(), 4);

  gc.close();
  await assert.rejects(gc.submit(job(null)), /closed/);
  db.close();
});

it('group commit with an inline sync: acknowledged after it in the same turn; when it declines, the sync off the loop runs; when it fails, the batch and every later write fail', async () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)');
  const insert = db.prepare('INSERT INTO t DEFAULT VALUES');
  const job = () => {
    const id = Number(insert.run().lastInsertRowid);
    return { value: id, event: { type: 'create' as const, kv: { key: `/k/${id}`, value: '', createRevision: id, modRevision: id } } };
  };
  const log: string[] = [];
  let inline: 'yes' | 'no' | 'fail' = 'yes';
  const gc = new GroupCommit({
    db,
    statements: { begin: db.prepare('BEGIN IMMEDIATE'), commit: db.prepare('COMMIT'), rollback: db.prepare('ROLLBACK') },
    onCommit: (events) => log.push(`published ${events.length}`),
    translate: (e) => (e instanceof Error ? e : new Error(String(e))),
    sync: async () => {
      log.push('sync off the loop');
    },
    syncNow: () => {
      if (inline === 'fail') throw new Error('fdatasync: EIO');
      log.push(inline === 'yes' ? 'synced inline' : 'declined');
      return inline === 'yes';
    },
  });

  assert.deepEqual(await Promise.all([gc.submit(job), gc.submit(job)]), [1, 2]);
  assert.deepEqual(log.splice(0), ['synced inline', 'published 2'], 'synced before anything is published, no sync off the loop');

  inline = 'no';
  assert.equal(await gc.submit(job), 3);
  assert.deepEqual(log.splice(0), ['declined', 'sync off the loop', 'published 1']);

  inline = 'fail';
  await assert.rejects(gc.submit(job), /EIO/);
  await assert.rejects(gc.submit(job), /EIO/, 'after a failed sync nothing more is accepted');
  assert.deepEqual(log, [], 'nothing published for the batch whose sync failed');
  await gc.close();
  db.close();
});
