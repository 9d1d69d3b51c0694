import { describe, expect, it } from "vitest";
import { parseFileName, type ParsedName } from "./filename.ts";

/**
 * One row per file name with the whole expected result:
 * [name, series, volume, volumeEnd, chapter, chapterEnd, part, kind, group, extra, special].
 */
type Row = [
  string,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  number | null,
  ParsedName["kind"],
  string | null,
  boolean,
  boolean,
];
const _ = null;
const B = "book" as const;
const C = "chapter" as const;

const table: Row[] = [
  // Volume and chapter markers
  ["Vol.01 Ch.003.cbz", _, "1", _, "3", _, _, C, _, false, false],
  ["Title v02 c010.5.cbz", "Title", "2", _, "10.5", _, _, C, _, false, false],
  ["Chapter 0", _, _, _, "0", _, _, C, _, false, false],
  ["Title - Chapter 0.cbz", "Title", _, _, "0", _, _, C, _, false, false],
  ["[Group] Title - c001-003.cbz", "Title", _, _, "1", "3", _, C, "Group", false, false],
  ["Title v01 (Digital).cbz", "Title", "1", _, _, _, _, B, _, false, false],
  ["Title - Vol. 3.cbz", "Title", "3", _, _, _, _, B, _, false, false],
  ["Title Volume 12", "Title", "12", _, _, _, _, B, _, false, false],
  ["Title v01-03.cbz", "Title", "1", "3", _, _, _, B, _, false, false],
  ["Dance in the Vampire Bund v16-17 (Digital) (NiceDragon)", "Dance in the Vampire Bund", "16", "17", _, _, _, B, "NiceDragon", false, false],
  ["Title c001 [Group].cbz", "Title", _, _, "1", _, _, C, "Group", false, false],
  ["Title - Chapter 45.5 - Subtitle.cbz", "Title", _, _, "45.5", _, _, C, _, false, false],
  ["Title #12.cbz", "Title", _, _, "12", _, _, C, _, false, false],
  ["X-Men v1 #201 (September 2007).cbz", "X-Men", "1", _, "201", _, _, C, _, false, false],
  ["Title 012.cbz", "Title", _, _, "12", _, _, C, _, false, false],
  ["012.cbz", _, _, _, "12", _, _, C, _, false, false],
  ["Title - 012.5.cbz", "Title", _, _, "12.5", _, _, C, _, false, false],
  ["Title Ch. 001.5.cbz", "Title", _, _, "1.5", _, _, C, _, false, false],
  ["Title v01 c001-c005.cbz", "Title", "1", _, "1", "5", _, C, _, false, false],
  ["Vol 1 Chapter 5", _, "1", _, "5", _, _, C, _, false, false],
  ["Title Chapter 1-10.cbz", "Title", _, _, "1", "10", _, C, _, false, false],
  ["Fullmetal Alchemist chapters 101-108.cbz", "Fullmetal Alchemist", _, _, "101", "108", _, C, _, false, false],
  ["Cynthia The Mission - c000 - c006 (v06)", "Cynthia The Mission", "6", _, "0", "6", _, C, _, false, false],
  ["Bleach 001-003", "Bleach", _, _, "1", "3", _, C, _, false, false],
  ["Mujaki no Rakuen Vol12 ch76", "Mujaki no Rakuen", "12", _, "76", _, _, C, _, false, false],
  ["Accel World Chapter 001 Volume 002", "Accel World", "2", _, "1", _, _, C, _, false, false],
  ["Killing Bites Vol. 0001 Ch. 0001 - Galactica Scanlations (gb)", "Killing Bites", "1", _, "1", _, _, C, _, false, false],
  ["Hentai Ouji to Warawanai Neko. - Vol. 06 Ch. 034.5", "Hentai Ouji to Warawanai Neko.", "6", _, "34.5", _, _, C, _, false, false],
  ["Title - Vol.tbd Chapter 27.cbz", "Title", _, _, "27", _, _, C, _, false, false],
  ["Tower of God Episode 10.cbz", "Tower of God", _, _, "10", _, _, C, _, false, false],
  ["Noblesse - Episode 406 (52 Pages).7z", "Noblesse", _, _, "406", _, _, C, _, false, false],
  ["Title Ep.05.cbz", "Title", _, _, "5", _, _, C, _, false, false],
  // Other languages
  ["進撃の巨人 第3巻.cbz", "進撃の巨人", "3", _, _, _, _, B, _, false, false],
  ["進撃の巨人 第12話.cbz", "進撃の巨人", _, _, "12", _, _, C, _, false, false],
  ["ワンピース 第３巻.cbz", "ワンピース", "3", _, _, _, _, B, _, false, false],
  ["斗罗大陆 第3卷.zip", "斗罗大陆", "3", _, _, _, _, B, _, false, false],
  ["幽游白书完全版 第03卷 天下", "幽游白书完全版", "3", _, _, _, _, B, _, false, false],
  ["スライム倒して300年、知らないうちにレベルMAXになってました 1-3巻", "スライム倒して300年、知らないうちにレベルMAXになってました", "1", "3", _, _, _, B, _, false, false],
  ["(一般コミック) [奥浩哉] いぬやしき 第09巻", "いぬやしき", "9", _, _, _, _, B, "奥浩哉", false, false],
  ["나 혼자만 레벨업 3화.cbz", "나 혼자만 레벨업", _, _, "3", _, _, C, _, false, false],
  ["나 혼자만 레벨업 3권.cbz", "나 혼자만 레벨업", "3", _, _, _, _, B, _, false, false],
  ["조선왕조실톡 106화", "조선왕조실톡", _, _, "106", _, _, C, _, false, false],
  ["이세계에서 고아원을 열었지만 38-1화", "이세계에서 고아원을 열었지만", _, _, "38", _, 1, C, _, false, false],
  ["One Piece Tome 03.cbz", "One Piece", "3", _, _, _, _, B, _, false, false],
  ["One Piece Chapitre 12.cbz", "One Piece", _, _, "12", _, _, C, _, false, false],
  ["Astérix Tomes 1-3.cbz", "Astérix", "1", "3", _, _, _, B, _, false, false],
  ["Berserk Tomo 3.cbz", "Berserk", "3", _, _, _, _, B, _, false, false],
  ["Berserk Capítulo 12.cbz", "Berserk", _, _, "12", _, _, C, _, false, false],
  ["Berserk Capitulo 12.cbz", "Berserk", _, _, "12", _, _, C, _, false, false],
  ["Title Episódio 12.cbz", "Title", _, _, "12", _, _, C, _, false, false],
  ["Naruto Band 4.cbz", "Naruto", "4", _, _, _, _, B, _, false, false],
  ["Naruto Kapitel 7.cbz", "Naruto", _, _, "7", _, _, C, _, false, false],
  ["Title Том 3.cbz", "Title", "3", _, _, _, _, B, _, false, false],
  ["Title Глава 12.cbz", "Title", _, _, "12", _, _, C, _, false, false],
  // Split chapters
  ["Title c012 (part 2).cbz", "Title", _, _, "12", _, 2, C, _, false, false],
  ["Title ch012_p2.cbz", "Title", _, _, "12", _, 2, C, _, false, false],
  ["Title c012 (part 1 of 2).cbz", "Title", _, _, "12", _, 1, C, _, false, false],
  ["Title c012 pt.2.cbz", "Title", _, _, "12", _, 2, C, _, false, false],
  ["Title Ch 12 Part 2.cbz", "Title", _, _, "12", _, 2, C, _, false, false],
  ["Title c012-2.cbz", "Title", _, _, "12", _, 2, C, _, false, false],
  ["Title Vol.01 Ch.003 (part 2 of 3).cbz", "Title", "1", _, "3", _, 2, C, _, false, false],
  ["Title c100 (part 2) (1).cbz", "Title", _, _, "100", _, 2, C, _, false, false],
  // Extras and specials
  ["Title - Prologue.cbz", "Title", _, _, _, _, _, null, _, true, false],
  ["Prologue.cbz", _, _, _, _, _, _, null, _, true, false],
  ["Title - Omake.cbz", "Title", _, _, _, _, _, null, _, true, false],
  ["Title - Omake 2.cbz", "Title", _, _, _, _, _, null, _, true, false],
  ["[BAA]_Darker_than_Black_Omake-1.zip", "Darker than Black", _, _, _, _, _, null, "BAA", true, false],
  ["Title c045.5 - Extra.cbz", "Title", _, _, "45.5", _, _, C, _, true, false],
  ["Title c099.5 - Epilogue.cbz", "Title", _, _, "99.5", _, _, C, _, true, false],
  ["Title - Side Story 03.cbz", "Title", _, _, _, _, _, null, _, true, false],
  ["Beelzebub_Side_Story_02_RHS.zip", "Beelzebub", _, _, _, _, _, null, _, true, false],
  ["Title v3 - Bonus.cbz", "Title", "3", _, _, _, _, B, _, true, false],
  ["The 100 Girlfriends - Vol. 03 Ch. 023.5 - Volume 3 Extras.cbz", "The 100 Girlfriends", "3", _, "23.5", _, _, C, _, true, false],
  ["Nagasarete Airantou - Vol. 30 Ch. 187.5 - Vol.31 Omake", "Nagasarete Airantou", "30", _, "187.5", _, _, C, _, true, false],
  ["Corpse Party -The Anthology- Hysteric Birthday 2U Extra Chapter.rar", "Corpse Party -The Anthology- Hysteric Birthday 2U", _, _, _, _, _, null, _, true, false],
  ["Title - Oneshot.cbz", "Title", _, _, _, _, _, null, _, false, true],
  ["Oneshot.cbz", _, _, _, _, _, _, null, _, false, true],
  ["Beelzebub Special OneShot - Minna no Kochikame x Beelzebub (2016) [Mangastream].cbz", "Beelzebub", _, _, _, _, _, null, "Mangastream", false, true],
  ["Love Hina - Special.cbz", "Love Hina", _, _, _, _, _, null, _, false, true],
  ["Beastars - SP01.cbz", "Beastars", _, _, _, _, _, null, _, false, true],
  ["Hajime no Ippo - Artbook.cbz", "Hajime no Ippo", _, _, _, _, _, null, _, false, true],
  // Tricky negatives: titles that look like numbers, extras or parts
  ["Title - Chapter 1 - Prologue.cbz", "Title", _, _, "1", _, _, C, _, false, false],
  ["Title - Chapter 0 - Prologue.cbz", "Title", _, _, "0", _, _, C, _, false, false],
  ["Goblin Slayer Side Story - Year One 025.5", "Goblin Slayer Side Story - Year One", _, _, "25.5", _, _, C, _, false, false],
  ["The League of Extra-ordinary Gentlemen v01.cbz", "The League of Extra-ordinary Gentlemen", "1", _, _, _, _, B, _, false, false],
  ["Dr. Ramune - Mysterious Disease Specialist v01 (2020) (Digital) (danke-Empire)", "Dr. Ramune - Mysterious Disease Specialist", "1", _, _, _, _, B, "danke-Empire", false, false],
  ["Title (2019) v01.cbz", "Title", "1", _, _, _, _, B, _, false, false],
  ["Title (2016-2019) (Digital).cbz", "Title", _, _, _, _, _, null, _, false, false],
  ["Title 2019.cbz", "Title 2019", _, _, _, _, _, null, _, false, false],
  ["Title 12345.cbz", "Title 12345", _, _, _, _, _, null, _, false, false],
  ["Title 2 v01.cbz", "Title 2", "1", _, _, _, _, B, _, false, false],
  ["Title S2 - c10.cbz", "Title S2", _, _, "10", _, _, C, _, false, false],
  ["Tower Of God S01 014 (CBT) (digital).cbz", "Tower Of God S01", _, _, "14", _, _, C, _, false, false],
  ["Title Season 2 012.cbz", "Title Season 2", _, _, "12", _, _, C, _, false, false],
  ["x3.cbz", "x3", _, _, _, _, _, null, _, false, false],
  ["7 Seeds v01.cbz", "7 Seeds", "1", _, _, _, _, B, _, false, false],
  ["7 Seeds 012.cbz", "7 Seeds", _, _, "12", _, _, C, _, false, false],
  ["7 Seeds.cbz", "7 Seeds", _, _, _, _, _, null, _, false, false],
  ["20th Century Boys v01.cbz", "20th Century Boys", "1", _, _, _, _, B, _, false, false],
  ["20th Century Boys c012.cbz", "20th Century Boys", _, _, "12", _, _, C, _, false, false],
  ["Hunter x Hunter v01.cbz", "Hunter x Hunter", "1", _, _, _, _, B, _, false, false],
  ["Hunter x Hunter 390.cbz", "Hunter x Hunter", _, _, "390", _, _, C, _, false, false],
  ["Kiss x Sis - Ch.15 - The Angst of a 15 Year Old Boy.cbz", "Kiss x Sis", _, _, "15", _, _, C, _, false, false],
  ["JoJo's Bizarre Adventure Part 4 v01.cbz", "JoJo's Bizarre Adventure Part 4", "1", _, _, _, _, B, _, false, false],
  ["Title Part 2.cbz", "Title Part 2", _, _, _, _, _, null, _, false, false],
  ["Getsuyoubi no Tawawa - Ch. 001 - Ai-chan, Part 1.cbz", "Getsuyoubi no Tawawa", _, _, "1", _, _, C, _, false, false],
  ["Kaiju No. 8 036 (2021) (Digital).cbz", "Kaiju No. 8", _, _, "36", _, _, C, _, false, false],
  ["Kaiju No. 8.cbz", "Kaiju No. 8", _, _, _, _, _, null, _, false, false],
  ["Mob Psycho 100 v02 (2019) (Digital) (Shizu).cbz", "Mob Psycho 100", "2", _, _, _, _, B, "Shizu", false, false],
  ["Title_-_Chapter_12_-_The_Vol_3_Incident.cbz", "Title", _, _, "12", _, _, C, _, false, false],
  ["Yumekui-Merry_DKThias_Chapter11v2.zip", "Yumekui-Merry DKThias", _, _, "11", _, _, C, _, false, false],
  ["Ichinensei_ni_Nacchattara_v02_ch11_[Taruby]_v1.3.zip", "Ichinensei ni Nacchattara", "2", _, "11", _, _, C, "Taruby", false, false],
  ["Title v01 c001 v2.cbz", "Title", "1", _, "1", _, _, C, _, false, false],
  // Separators, duplicates, noise, tags and extensions
  ["Title_v01_c003.cbz", "Title", "1", _, "3", _, _, C, _, false, false],
  ["Title.v01.c003.cbz", "Title", "1", _, "3", _, _, C, _, false, false],
  ["Title.Chapter.45.5.cbz", "Title", _, _, "45.5", _, _, C, _, false, false],
  ["Gantz.V26.cbz", "Gantz", "26", _, _, _, _, B, _, false, false],
  ["Historys Strongest Disciple Kenichi_v11_c90-98.zip", "Historys Strongest Disciple Kenichi", "11", _, "90", "98", _, C, _, false, false],
  ["B_Gata_H_Kei_v01[SlowManga&OverloadScans]", "B Gata H Kei", "1", _, _, _, _, B, "SlowManga&OverloadScans", false, false],
  ["[WS]_Ichiban_Ushiro_no_Daimaou_v02_ch10.zip", "Ichiban Ushiro no Daimaou", "2", _, "10", _, _, C, "WS", false, false],
  ["Tenjou_Tenge_v17_c100[MT].zip", "Tenjou Tenge", "17", _, "100", _, _, C, "MT", false, false],
  ["NEEDLESS_Vol.4_-_Simeon_6_v2_[SugoiSugoi].rar", "NEEDLESS", "4", _, _, _, _, B, "SugoiSugoi", false, false],
  ["Title-c001.cbz", "Title", _, _, "1", _, _, C, _, false, false],
  ["Title v01 (1).cbz", "Title", "1", _, _, _, _, B, _, false, false],
  ["Title - Vol. 3 (1).cbz", "Title", "3", _, _, _, _, B, _, false, false],
  ["Title - 012 - The Beginning (1).cbz", "Title", _, _, "12", _, _, C, _, false, false],
  ["Title - Episode 10 (2).cbz", "Title", _, _, "10", _, _, C, _, false, false],
  ["Title c001 (Digital) (1).cbz", "Title", _, _, "1", _, _, C, _, false, false],
  ["Title v01 [Group] (1).cbz", "Title", "1", _, _, _, _, B, "Group", false, false],
  ["Title c003 [1080p].cbz", "Title", _, _, "3", _, _, C, _, false, false],
  ["[1080p] Title c001.cbz", "Title", _, _, "1", _, _, C, _, false, false],
  ["Title c001 [English] [Group].cbz", "Title", _, _, "1", _, _, C, "Group", false, false],
  ["Title c01 [v2] [Group].cbz", "Title", _, _, "1", _, _, C, "Group", false, false],
  ["Kedouin Makoto - Corpse Party Musume, Chapter 12 [Dametrans][v2]", "Kedouin Makoto - Corpse Party Musume", _, _, "12", _, _, C, "Dametrans", false, false],
  ["Title v05 (2019) (Digital) (danke-Empire).cbz", "Title", "5", _, _, _, _, B, "danke-Empire", false, false],
  ["BTOOOM! v01 (2013) (Digital) (Shadowcat-Empire)", "BTOOOM!", "1", _, _, _, _, B, "Shadowcat-Empire", false, false],
  ["Gokukoku no Brynhildr - c001-008 (v01) [TrinityBAKumA]", "Gokukoku no Brynhildr", "1", _, "1", "8", _, C, "TrinityBAKumA", false, false],
  ["To Love Ru v09 Uncensored (Ch.071-079).cbz", "To Love Ru", "9", _, _, _, _, B, _, false, false],
  ["Tonikaku Kawaii (Ch 59-67) (Ongoing)", "Tonikaku Kawaii", _, _, "59", "67", _, C, _, false, false],
  ["Tonikaku Cawaii [Volume 11].cbz", "Tonikaku Cawaii", "11", _, _, _, _, B, _, false, false],
  ["Title v01.zip", "Title", "1", _, _, _, _, B, _, false, false],
  ["Title v01.cbr", "Title", "1", _, _, _, _, B, _, false, false],
  ["Title v01.cb7", "Title", "1", _, _, _, _, B, _, false, false],
  ["Title v01", "Title", "1", _, _, _, _, B, _, false, false],
  ["Title v01.5.CBZ", "Title", "1.5", _, _, _, _, B, _, false, false],
  ["library/Title/Title v02.cbz", "Title", "2", _, _, _, _, B, _, false, false],
];

describe("parseFileName", () => {
  it("has a real table", () => {
    expect(table.length).toBeGreaterThanOrEqual(90);
    expect(new Set(table.map((r) => r[0])).size).toBe(table.length);
  });

  it.each(table)("%s", (name, series, volume, volumeEnd, chapter, chapterEnd, part, kind, group, extra, special) => {
    const expected: ParsedName = { series, volume, volumeEnd, chapter, chapterEnd, part, kind, group, extra, special };
    expect(parseFileName(name)).toEqual(expected);
  });

  it("keeps a known series whole, digits and all", () => {
    const opts = { series: "Mob Psycho 100" };
    expect(parseFileName("Mob Psycho 100.cbz", opts)).toMatchObject({ series: "Mob Psycho 100", chapter: null, kind: null });
    expect(parseFileName("Mob_Psycho_100_012.cbz", opts)).toMatchObject({ series: "Mob Psycho 100", chapter: "12" });
    expect(parseFileName("Mob Psycho 100.cbz")).toMatchObject({ series: "Mob Psycho", chapter: "100" });
    // A known series that itself ends in an extra word is not an extra.
    expect(parseFileName("Beelzebub Side Story 02", { series: "Beelzebub Side Story" })).toMatchObject({
      series: "Beelzebub Side Story",
      chapter: "2",
      extra: false,
    });
    expect(parseFileName("Special A 12.cbz", { series: "Special A" })).toMatchObject({ chapter: "12", special: false });
    // A different series leaves the name to the rules.
    expect(parseFileName("Title 2 v01.cbz", { series: "Other" })).toMatchObject({ series: "Title 2", volume: "1" });
  });

  it("stays bounded on hostile names", () => {
    const long = `${"a - ".repeat(5000)}c1`;
    const start = performance.now();
    const r = parseFileName(long);
    expect(performance.now() - start).toBeLessThan(500);
    expect(r.chapter).toBe(null); // cut to 512 characters: the marker is gone
    expect(parseFileName(`Title c${"9".repeat(40)}`).chapter).toBe("9".repeat(40));
  });
});
