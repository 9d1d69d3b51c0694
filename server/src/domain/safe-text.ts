/**
 * Text the service accepts: well-formed Unicode (no lone surrogate, which no file system or
 * database stores faithfully) and no control character other than tab; line breaks only where a
 * field is multi-line (a note). A NUL would otherwise cut a title short in the database.
 */

export type UnsafeText = "lone_surrogate" | "control_character";

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/** Cc: C0 (U+0000–U+001F), DEL and C1 (U+0080–U+009F). */
const isControl = (c: number) => c < 0x20 || (c >= 0x7f && c <= 0x9f);

/** Why `s` is refused, or null when it is acceptable. */
export function unsafeText(s: string, options: { multiline?: boolean } = {}): UnsafeText | null {
  let control = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return "lone_surrogate";
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return "lone_surrogate";
    } else if (isControl(c) && c !== TAB && !(options.multiline && (c === LF || c === CR))) {
      control = true;
    }
  }
  return control ? "control_character" : null;
}

export const UNSAFE_TEXT_WORDS: Record<UnsafeText, string> = {
  lone_surrogate: "holds a lone surrogate (not well-formed Unicode)",
  control_character: "holds a control character (only tab is allowed, and line breaks in a multi-line note)",
};
