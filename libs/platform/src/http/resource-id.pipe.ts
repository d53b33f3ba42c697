import { PipeTransform } from '@nestjs/common';
import { NotFoundError } from '@billing/shared-kernel';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * Path ids are uuids: anything else names no resource, so it answers 404 like
 * any unknown id (the same status whatever the id's shape).
 */
export class ResourceIdPipe implements PipeTransform<string, string> {
  constructor(private readonly resource: string) {}

  transform(value: string): string {
    if (!isUuid(value)) throw new NotFoundError(this.resource, value);
    return value.toLowerCase();
  }
}
