import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, EntityManager } from 'typeorm';
import { WrittenStream } from './types';

/**
 * A transaction that the whole of one command runs in, opened by whoever
 * must commit something together with the command's events (the HTTP edge,
 * for an Idempotency-Key and its stored response). While it is open, every
 * statement the command path and the read models issue on the default
 * manager runs on its connection instead of the pool, and the read models
 * are awaited by its owner after the commit rather than inside it.
 */
export class UnitOfWork {
  /** The streams the command wrote: what its owner awaits the read models for after committing. */
  readonly written: WrittenStream[] = [];
  private open = true;

  constructor(readonly manager: EntityManager) {}

  get isOpen(): boolean {
    return this.open;
  }

  /** After this, nothing (not even a callback that outlives the command) can reach the transaction. */
  close(): void {
    this.open = false;
  }
}

const ambient = new AsyncLocalStorage<UnitOfWork>();

/** Runs `work` with `unit` as the ambient unit of work of everything it awaits. */
export function withinUnitOfWork<Result>(unit: UnitOfWork, work: () => Promise<Result>): Promise<Result> {
  return ambient.run(unit, work);
}

/** Runs `work` outside any unit of work (work of its own that must not join the caller's transaction). */
export function outsideUnitOfWork<Result>(work: () => Promise<Result>): Promise<Result> {
  return ambient.exit(work);
}

/** The open unit of work of the current command, if its caller opened one. */
export function currentUnitOfWork(): UnitOfWork | undefined {
  const unit = ambient.getStore();
  return unit?.isOpen ? unit : undefined;
}

/**
 * Runs `work` in a transaction: a savepoint inside the ambient unit of work
 * (so a failing part rolls back alone and the unit commits once), else a
 * transaction of its own.
 */
export function inTransaction<Result>(dataSource: DataSource, work: (tx: EntityManager) => Promise<Result>): Promise<Result> {
  const unit = currentUnitOfWork();
  return unit ? unit.manager.transaction(work) : dataSource.transaction(work);
}
