import { validateXML } from "xmllint-wasm";
import { schemaFor, type FormatVersion } from "./comicinfo/format.ts";

/**
 * The ComicInfo versions every ComicInfo.xml the service writes must satisfy: the 2.1 draft always,
 * 2.0 as well when no 2.1-only element is used. Schemas rendered from our own description of the
 * format (comicinfo/format.ts); CI also checks samples against the published schemas.
 */
export const COMICINFO_XSD_21: FormatVersion = "2.1";
export const COMICINFO_XSD_20: FormatVersion = "2.0";

/**
 * libxml2's schema validation (the engine behind `xmllint --schema`), compiled to WebAssembly and
 * shipped by npm: the tests need no system package. Throws with every error when invalid.
 */
export async function assertValidXml(version: FormatVersion, files: { name: string; xml: string }[]): Promise<void> {
  const schema = schemaFor(version);
  const result = await validateXML({
    xml: files.map((f) => ({ fileName: f.name, contents: f.xml })),
    schema: [schema],
  });
  if (!result.valid) {
    throw new Error(`XML fails ComicInfo ${version}:\n${result.errors.map((e) => e.rawMessage).join("\n")}`);
  }
}
