import { PipeTransform } from '@nestjs/common';
import { isUuid, NotFoundError } from '@billing/shared-kernel';

export { isUuid };

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
