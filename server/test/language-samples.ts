/**
 * Short manga dialogue for measuring the language identifier: thirty parallel lines (the same
 * meaning in each language, in the same order) of the kind speech bubbles hold — exclamations,
 * questions, one short sentence. Written for these tests; pages of one or two bubbles pool two
 * lines, a short book six.
 */

export const DIALOGUE: Readonly<Record<string, readonly string[]>> = {
  en: [
    "Hello, my friend!",
    "Are you okay?",
    "I'm late!",
    "Wait for me here.",
    "Thank you so much",
    "for your help.",
    "What?!",
    "Where are you going?",
    "Don't move!",
    "I told you so.",
    "Let's go!",
    "It's over.",
    "Who are you?",
    "I won't lose!",
    "Run!",
    "Is that true?",
    "I'm hungry...",
    "Leave me alone!",
    "See you tomorrow.",
    "That was close.",
    "He's coming back.",
    "I don't know.",
    "Be careful!",
    "Why me?",
    "We did it!",
    "Help me!",
    "What a pain...",
    "I'm sorry.",
    "No way!",
    "Come here.",
  ],
  fr: [
    "Bonjour mon ami !",
    "Tu vas bien ?",
    "Je suis en retard,",
    "attends-moi ici.",
    "Merci beaucoup",
    "pour ton aide.",
    "Quoi ?!",
    "Où vas-tu ?",
    "Ne bouge pas !",
    "Je te l'avais dit.",
    "On y va !",
    "C'est fini.",
    "Qui es-tu ?",
    "Je ne perdrai pas !",
    "Cours !",
    "C'est vrai ?",
    "J'ai faim...",
    "Laisse-moi tranquille !",
    "À demain.",
    "C'était moins une.",
    "Il revient.",
    "Je ne sais pas.",
    "Fais attention !",
    "Pourquoi moi ?",
    "On a réussi !",
    "Aide-moi !",
    "Quelle galère...",
    "Je suis désolé.",
    "Pas question !",
    "Viens ici.",
  ],
  es: [
    "¡Hola, amigo mío!",
    "¿Estás bien?",
    "¡Llego tarde!",
    "Espérame aquí.",
    "Muchas gracias",
    "por tu ayuda.",
    "¡¿Qué?!",
    "¿Adónde vas?",
    "¡No te muevas!",
    "Te lo dije.",
    "¡Vamos!",
    "Se acabó.",
    "¿Quién eres?",
    "¡No perderé!",
    "¡Corre!",
    "¿Es verdad?",
    "Tengo hambre...",
    "¡Déjame en paz!",
    "Hasta mañana.",
    "Eso estuvo cerca.",
    "Él vuelve.",
    "No lo sé.",
    "¡Ten cuidado!",
    "¿Por qué yo?",
    "¡Lo logramos!",
    "¡Ayúdame!",
    "Qué fastidio...",
    "Lo siento.",
    "¡Ni hablar!",
    "Ven aquí.",
  ],
  de: [
    "Hallo, mein Freund!",
    "Geht es dir gut?",
    "Ich bin spät dran!",
    "Warte hier auf mich.",
    "Vielen Dank",
    "für deine Hilfe.",
    "Was?!",
    "Wohin gehst du?",
    "Beweg dich nicht!",
    "Ich hab's dir gesagt.",
    "Los geht's!",
    "Es ist vorbei.",
    "Wer bist du?",
    "Ich werde nicht verlieren!",
    "Lauf!",
    "Ist das wahr?",
    "Ich habe Hunger...",
    "Lass mich in Ruhe!",
    "Bis morgen.",
    "Das war knapp.",
    "Er kommt zurück.",
    "Ich weiß nicht.",
    "Pass auf!",
    "Warum ich?",
    "Wir haben es geschafft!",
    "Hilf mir!",
    "Wie lästig...",
    "Es tut mir leid.",
    "Auf keinen Fall!",
    "Komm her.",
  ],
  it: [
    "Ciao, amico mio!",
    "Stai bene?",
    "Sono in ritardo!",
    "Aspettami qui.",
    "Grazie mille",
    "per il tuo aiuto.",
    "Cosa?!",
    "Dove vai?",
    "Non muoverti!",
    "Te l'avevo detto.",
    "Andiamo!",
    "È finita.",
    "Chi sei?",
    "Non perderò!",
    "Corri!",
    "È vero?",
    "Ho fame...",
    "Lasciami in pace!",
    "A domani.",
    "C'è mancato poco.",
    "Sta tornando.",
    "Non lo so.",
    "Stai attento!",
    "Perché io?",
    "Ce l'abbiamo fatta!",
    "Aiutami!",
    "Che seccatura...",
    "Mi dispiace.",
    "Neanche per sogno!",
    "Vieni qui.",
  ],
  pt: [
    "Olá, meu amigo!",
    "Você está bem?",
    "Estou atrasado!",
    "Espere por mim aqui.",
    "Muito obrigado",
    "pela sua ajuda.",
    "O quê?!",
    "Aonde você vai?",
    "Não se mexa!",
    "Eu te disse.",
    "Vamos!",
    "Acabou.",
    "Quem é você?",
    "Não vou perder!",
    "Corra!",
    "É verdade?",
    "Estou com fome...",
    "Me deixe em paz!",
    "Até amanhã.",
    "Foi por pouco.",
    "Ele está voltando.",
    "Não sei.",
    "Tome cuidado!",
    "Por que eu?",
    "Conseguimos!",
    "Me ajude!",
    "Que saco...",
    "Desculpe.",
    "De jeito nenhum!",
    "Venha aqui.",
  ],
  ru: [
    "Привет, мой друг!",
    "Ты в порядке?",
    "Я опаздываю!",
    "Жди меня здесь.",
    "Большое спасибо",
    "за твою помощь.",
    "Что?!",
    "Куда ты идёшь?",
    "Не двигайся!",
    "Я же говорил.",
    "Пошли!",
    "Всё кончено.",
    "Кто ты?",
    "Я не проиграю!",
    "Беги!",
    "Это правда?",
    "Я голоден...",
    "Оставь меня в покое!",
    "До завтра.",
    "Чуть не попались.",
    "Он возвращается.",
    "Я не знаю.",
    "Осторожно!",
    "Почему я?",
    "Мы сделали это!",
    "Помоги мне!",
    "Какая морока...",
    "Прости.",
    "Ни за что!",
    "Иди сюда.",
  ],
  ja: [
    "やあ、友よ！",
    "大丈夫？",
    "遅刻だ！",
    "ここで待ってて。",
    "本当にありがとう",
    "助けてくれて。",
    "何！？",
    "どこへ行くの？",
    "動くな！",
    "だから言ったのに。",
    "行くぞ！",
    "終わった。",
    "誰だ？",
    "負けない！",
    "走れ！",
    "本当？",
    "お腹すいた…",
    "ほっといて！",
    "また明日。",
    "危なかった。",
    "戻ってくる。",
    "わからない。",
    "気をつけて！",
    "なんで私？",
    "やった！",
    "助けて！",
    "面倒くさい…",
    "ごめんなさい。",
    "ありえない！",
    "こっちに来て。",
  ],
  ko: [
    "안녕, 친구!",
    "괜찮아?",
    "늦었어!",
    "여기서 기다려.",
    "정말 고마워",
    "도와줘서.",
    "뭐?!",
    "어디 가?",
    "움직이지 마!",
    "내가 말했잖아.",
    "가자!",
    "끝났어.",
    "누구야?",
    "지지 않아!",
    "뛰어!",
    "정말이야?",
    "배고파...",
    "날 내버려 둬!",
    "내일 봐.",
    "위험했어.",
    "그가 돌아와.",
    "모르겠어.",
    "조심해!",
    "왜 나야?",
    "해냈다!",
    "도와줘!",
    "귀찮아...",
    "미안해.",
    "말도 안 돼!",
    "이리 와.",
  ],
  zh: [
    "你好，我的朋友！",
    "你还好吗？",
    "我迟到了！",
    "在这里等我。",
    "非常感谢",
    "你的帮助。",
    "什么？！",
    "你去哪里？",
    "别动！",
    "我早就说过了。",
    "我们走！",
    "结束了。",
    "你是谁？",
    "我不会输的！",
    "快跑！",
    "真的吗？",
    "我饿了……",
    "别管我！",
    "明天见。",
    "好险。",
    "他回来了。",
    "我不知道。",
    "小心！",
    "为什么是我？",
    "我们做到了！",
    "救救我！",
    "真麻烦……",
    "对不起。",
    "不可能！",
    "过来。",
  ],
};

/** The texts of pools of `size` consecutive lines of one language (the rest left out). */
export function pools(lines: readonly string[], size: number): string[][] {
  const out: string[][] = [];
  for (let i = 0; i + size <= lines.length; i += size) out.push(lines.slice(i, i + size));
  return out;
}

export interface PoolFigures {
  /** Pools of the expected language confirmed as it. */
  confirmed: number;
  /** Pools of the expected language judged undetermined (wait for a bigger pool). */
  undetermined: number;
  /** Pools of the expected language judged as another one. */
  otherLanguage: number;
  total: number;
  /** Pools of another language confirmed as the expected one (the failure that must not happen). */
  falseConfirmations: number;
  foreignTotal: number;
  /** The falsely confirmed pools, for the report. */
  falseExamples: string[];
}

/**
 * How the judge does on pools of `size` lines: every language of the samples as the expected one,
 * translated from each of `sources` (the rivals are that source and English).
 */
export function measurePools(
  judge: (texts: readonly string[], expected: string, rivals: readonly string[]) => { verdict: string },
  size: number,
  sources: readonly string[] = ["ja", "fr", "es", "en"],
): PoolFigures & { byLanguage: Record<string, number> } {
  const f: PoolFigures & { byLanguage: Record<string, number> } = {
    confirmed: 0,
    undetermined: 0,
    otherLanguage: 0,
    total: 0,
    falseConfirmations: 0,
    foreignTotal: 0,
    falseExamples: [],
    byLanguage: {},
  };
  const langs = Object.keys(DIALOGUE);
  for (const expected of langs) {
    let mine = 0;
    let confirmedMine = 0;
    for (const source of sources) {
      if (source === expected) continue;
      const rivals = [source, "en"];
      for (const lang of langs)
        for (const texts of pools(DIALOGUE[lang]!, size)) {
          const v = judge(texts, expected, rivals).verdict;
          if (lang === expected) {
            f.total++;
            mine++;
            if (v === "confirmed") {
              f.confirmed++;
              confirmedMine++;
            } else if (v === "other") f.otherLanguage++;
            else f.undetermined++;
          } else {
            f.foreignTotal++;
            if (v === "confirmed") {
              f.falseConfirmations++;
              const example = `${lang} as ${expected}: ${texts.join(" / ")}`;
              if (f.falseExamples.length < 5 && !f.falseExamples.includes(example)) f.falseExamples.push(example);
            }
          }
        }
    }
    f.byLanguage[expected] = Math.round((100 * confirmedMine) / Math.max(1, mine));
  }
  return f;
}
