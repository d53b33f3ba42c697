import fc from 'fast-check';
import { JsonText } from './json-text';

describe('JsonText', () => {
  it('given an object as Postgres prints jsonb, when a member is added, then the text parses to the object with that member last', () => {
    const text = JsonText.ofObject('{"id": "a", "lines": [{"amount": 1999}], "customer": {"name": "Bench Oy"}}').withMember('hostedInvoiceUrl', null).text;
    expect(text).toBe('{"id": "a", "lines": [{"amount": 1999}], "customer": {"name": "Bench Oy"}, "hostedInvoiceUrl": null}');
    expect(Object.keys(JSON.parse(text))).toEqual(['id', 'lines', 'customer', 'hostedInvoiceUrl']);
  });

  it('given an empty object, when a member is added, then it is the only member', () => {
    expect(JSON.parse(JsonText.ofObject('{ }').withMember('url', 'https://x.test/"quoted"').text)).toEqual({ url: 'https://x.test/"quoted"' });
  });

  it('given text that is not one JSON object, when it is taken as one, then it is refused', () => {
    for (const text of ['[1]', '"x"', '', 'null', '{"a": 1']) expect(() => JsonText.ofObject(text)).toThrow('JsonText holds one JSON object');
  });

  it('given any JSON object and a new member, when added, then parsing equals spreading the member into the object', () => {
    const member = fc.oneof(fc.string(), fc.constant(null), fc.integer());
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), member, (object, name, value) => {
        fc.pre(!Object.prototype.hasOwnProperty.call(object, name));
        const added = JSON.parse(JsonText.ofObject(JSON.stringify(object)).withMember(name, value).text);
        // Against JSON's own round trip of the spread: JSON has no -0 (fast-check's jsonValue makes one), it reads back 0.
        expect(added).toEqual(JSON.parse(JSON.stringify({ ...object, [name]: value })));
      }),
    );
  });
});
