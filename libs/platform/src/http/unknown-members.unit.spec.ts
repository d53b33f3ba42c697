import 'reflect-metadata';
import * as classTransformer from 'class-transformer';
import { Type } from 'class-transformer';
import { IsArray, IsInt, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { DomainError, UNKNOWN_PROPERTY } from '@billing/shared-kernel';
import { ElementsOf, MAX_REPORTED_ERRORS, unknownMembers } from './unknown-members';
import { createValidationPipe, toFieldErrors } from './validation';
import { findInputDefect, MAX_OBJECT_MEMBERS } from './hostile-input';

class LineDto {
  @IsInt()
  quantity!: number;
}

class PartyDto {
  @IsString()
  name!: string;
  @IsOptional()
  @IsObject()
  metadata?: Record<string, string>;
}

class BodyDto {
  @IsString()
  memo!: string;
  @IsObject()
  @ValidateNested()
  @Type(() => PartyDto)
  party!: PartyDto;
  // Converted by hand like the invoice lines: class-transformer's type is not the element DTO.
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => String)
  @ElementsOf(() => LineDto)
  lines!: LineDto[];
}

function unknownBody(count: number, at: (index: number) => string): Record<string, unknown> {
  const body: Record<string, unknown> = { memo: 'm', party: { name: 'n' }, lines: [] };
  for (let index = 0; index < count; index++) body[at(index)] = index;
  return body;
}

async function refusal(pipeInput: unknown): Promise<DomainError> {
  try {
    await createValidationPipe().transform(pipeInput, { type: 'body', metatype: BodyDto });
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('unknown members, found before class-transformer copies a body', () => {
  afterEach(() => jest.restoreAllMocks());

  it('given members of the body, of a nested DTO and of array elements named by ElementsOf, then each unknown one at its pointer', () => {
    const body = { memo: 'm', x: 1, party: { name: 'n', metadata: { free: 'a' }, y: 2 }, lines: [{ quantity: 1 }, { quantity: 1, 'a/b': 3 }] };
    expect(
      unknownMembers(body, BodyDto)
        .map((error) => error.pointer)
        .sort(),
    ).toEqual(['/lines/1/a~1b', '/party/y', '/x']);
    expect(unknownMembers(body, BodyDto).every((error) => error.detail === UNKNOWN_PROPERTY)).toBe(true);
  });

  it('given a leaf member (a map class-validator never walks), then its members are not judged', () => {
    expect(unknownMembers({ memo: 'm', party: { name: 'n', metadata: { any: 'x' } }, lines: [] }, BodyDto)).toEqual([]);
  });

  it('given 60 000 unknown members spread over array elements, then the walk stops at the limit', () => {
    const lines = Array.from({ length: 60 }, () => Object.fromEntries(Array.from({ length: 1000 }, (_, index) => [`u${index}`, 1])));
    expect(unknownMembers({ memo: 'm', party: { name: 'n' }, lines }, BodyDto, 7)).toHaveLength(7);
  });

  it('given more unknown members than a problem reports, then the pipe refuses with the first ones and never runs class-transformer', async () => {
    const convert = jest.spyOn(classTransformer, 'plainToInstance');
    const error = await refusal(unknownBody(60_000, (index) => `u${index}`));
    expect(convert).not.toHaveBeenCalled();
    expect(error.errors).toHaveLength(MAX_REPORTED_ERRORS);
    expect(error.errors[0]).toEqual({ pointer: expect.stringMatching(/^\/u\d+$/), detail: UNKNOWN_PROPERTY });
  });

  it('given a few unknown members and other errors, then all are reported together, as before', async () => {
    const error = await refusal({ ...unknownBody(2, (index) => `u${index}`), memo: 5 });
    expect(error.errors.map((e) => e.pointer).sort()).toEqual(['/memo', '/u0', '/u1']);
  });

  it('given an unknown member of 100 000 characters, then a 422 at its pointer (its name is never made a pattern)', async () => {
    const name = `(${'k'.repeat(100_000)}`;
    const error = await refusal(unknownBody(1, () => name));
    expect(error.errors).toEqual([{ pointer: `/${name}`, detail: UNKNOWN_PROPERTY }]);
  });

  it('given class-validator errors past the cap, then at most MAX_REPORTED_ERRORS field errors', () => {
    const errors = Array.from({ length: 500 }, (_, index) => ({
      property: String(index),
      constraints: { isInt: `${index} must be an integer` },
      children: [],
    }));
    const fields = toFieldErrors(errors);
    expect(fields).toHaveLength(MAX_REPORTED_ERRORS);
    expect(fields[0]).toEqual({ pointer: '/0', detail: 'must be an integer' });
  });
});

describe('the parsed body pre-pass', () => {
  it('given an object with more than MAX_OBJECT_MEMBERS members, then the defect points at it', () => {
    const wide = Object.fromEntries(Array.from({ length: MAX_OBJECT_MEMBERS + 1 }, (_, index) => [`k${index}`, index]));
    expect(findInputDefect({ a: [{ b: wide }] })).toEqual({ kind: 'too-many-members', pointer: '/a/0/b' });
    expect(findInputDefect({ a: [{ b: Object.fromEntries(Object.entries(wide).slice(1)) }] })).toBeNull();
  });

  it('given invalid text in a key, a value or deep nesting, then the defect and its pointer', () => {
    expect(findInputDefect({ a: { 'b\u0000': 1 } })).toEqual({ kind: 'invalid-text', pointer: '/a/b\u0000' });
    expect(findInputDefect({ a: ['x', '\ud800'] })).toEqual({ kind: 'invalid-text', pointer: '/a/1' });
    expect(findInputDefect('\u0000')).toEqual({ kind: 'invalid-text', pointer: '' });
    expect(findInputDefect({ a: { b: {} } }, 2)).toEqual({ kind: 'too-deep', pointer: '/a/b' });
  });
});
