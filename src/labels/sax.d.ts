/** The part of sax 1.x (which ships no types) that svg-sanitize.ts uses: https://github.com/isaacs/sax-js#usage */
declare module 'sax' {
  interface QualifiedAttribute {
    name: string;
    value: string;
    prefix: string;
    local: string;
    uri: string;
  }
  interface QualifiedTag {
    name: string;
    prefix: string;
    local: string;
    uri: string;
    attributes: Record<string, QualifiedAttribute>;
    isSelfClosing: boolean;
  }
  interface SAXParser {
    onopentag: (tag: QualifiedTag) => void;
    onclosetag: (name: string) => void;
    ontext: (text: string) => void;
    oncdata: (text: string) => void;
    ondoctype: (doctype: string) => void;
    onerror: (err: Error) => void;
    write(chunk: string): SAXParser;
    close(): SAXParser;
  }
  interface SAXOptions {
    xmlns?: boolean;
    position?: boolean;
    trim?: boolean;
    normalize?: boolean;
    lowercase?: boolean;
    strictEntities?: boolean;
  }
  function parser(strict: boolean, opt?: SAXOptions): SAXParser;
  const sax: { parser: typeof parser };
  export default sax;
  export type { QualifiedTag, QualifiedAttribute, SAXParser, SAXOptions };
}
