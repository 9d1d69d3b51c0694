import { readFile } from "node:fs/promises";
import path from "node:path";
import { validateXML } from "xmllint-wasm";

/** The ComicInfo schemas every ComicInfo.xml the service writes must validate against (see comicinfo/README.md). */
export const COMICINFO_XSD_21 = path.join(import.meta.dirname, "comicinfo", "ComicInfo-v2.1-draft.xsd");
export const COMICINFO_XSD_20 = path.join(import.meta.dirname, "comicinfo", "ComicInfo-v2.0.xsd");

/**
 * libxml2's schema validation (the engine behind `xmllint --schema`), compiled to WebAssembly and
 * shipped by npm: the tests need no system package. Throws with every error when invalid.
 */
export async function assertValidXml(xsdPath: string, files: { name: string; xml: string }[]): Promise<void> {
  const schema = { fileName: path.basename(xsdPath), contents: await readFile(xsdPath, "utf8") };
  const result = await validateXML({
    xml: files.map((f) => ({ fileName: f.name, contents: f.xml })),
    schema: [schema],
  });
  if (!result.valid) {
    throw new Error(`XML fails ${path.basename(xsdPath)}:\n${result.errors.map((e) => e.rawMessage).join("\n")}`);
  }
}
