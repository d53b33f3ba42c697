import { EntityManager } from 'typeorm';
import { TaxRegister } from './domain';

/**
 * What invoice commands read of an environment's tax-code register: the
 * entries for the codes a command names (codes it does not know are simply
 * absent). A port, so handlers depend on what they read, not on a read-model
 * class; the read model implements it. `within` reads inside the command's
 * own transaction, so a command holding one never waits for a second
 * connection.
 */
export abstract class TaxRegisterReader {
  abstract read(environmentId: string, codes: readonly string[], within?: EntityManager): Promise<TaxRegister>;
}
