// Gentle, automatic guidance for QA edits (docs/rules.md §4.1). Warnings only; nothing blocks,
// and the edit form lets each one be dismissed. Pure functions over strings, so tests can
// import and call them directly.

import { COMMON_WORDS } from "./common_words.js";

const YES_NO = new Set(("is are was were do does did can could has have had will would should " +
  "shall may might must am isn't aren't wasn't weren't don't doesn't didn't").split(" "));

// Words any reader knows: question words, function words, and the generic vocabulary of
// study reports (with COMMON_WORDS, everyday English). A question word outside these lists
// must be given by the simplified text.
const GENERAL = new Set(`a an the of in on at to for from by with without about into onto
over under after before during between among per than then and or but not no nor so if
whether as what which who whom whose when where why how much many long often exactly
precisely specifically kind type sort way ways its it they them their there this that
these those he she his her we our you your be been being is are was were do does did
done have has had can could will would should may might must shall get got gets give
given gave take took taken make made use used using receive received measure measured
tell told say said find found show showed shown mean meant happen happened compare
compared compares change changed study studies trial trials research researchers
scientist scientists doctor doctors patient patients people person participants
participant adults adult children child men women group groups treatment treatments
treated medicine medicines drug drugs dose doses result results effect effects outcome
outcomes number numbers amount amounts percent percentage rate rates level levels time
times day days week weeks month months year years hour hours minute minutes more less
fewer most least higher lower larger smaller better worse same different other others
each every any all some both only also just very exact first second last new old main
number size side start end reason reasons part parts type types name named called`
  .split(/\s+/));

const KNOWN_ACRONYMS = new Set(["US", "UK", "EU", "OK", "TV", "DNA", "HIV", "AIDS", "COVID"]);

const norm = (text) => text.toLowerCase().normalize("NFKC")
  .replace(/[^\p{L}\p{N}%.]+/gu, " ").replace(/\s+/g, " ").trim();

const words = (text) => (text.toLowerCase().normalize("NFKC").match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) || []);

export function stem(word) {
  let w = word.toLowerCase();
  for (const [suffix, repl] of [["ies", "y"], ["ied", "y"], ["ing", ""], ["ed", ""], ["es", ""],
    ["s", ""], ["ly", ""]]) {
    if (w.length > suffix.length + 3 && w.endsWith(suffix)) { w = w.slice(0, -suffix.length) + repl; break; }
  }
  return w;
}

export function isYesNoQuestion(question) {
  const first = words(question)[0];
  return Boolean(first && YES_NO.has(first));
}

/** Is the answer (or every content word of it) already in the simplification? */
export function answerInText(answer, text) {
  const a = norm(answer);
  if (a.length < 4) return false;
  return norm(text).includes(a);
}

/** The forms a word may stand for: itself, its stem, the stem with the "e" that "-ing" /
 *  "-ed" dropped ("having" -> "have"), the singular ("ages" -> "age"), without "'s". */
export function wordForms(word) {
  const w = word.toLowerCase().replace(/['’]s$/, "");
  const s = stem(w);
  const forms = [w, s, `${s}e`];
  if (w.endsWith("s") && w.length > 3) forms.push(w.slice(0, -1));
  if (w.endsWith("ies") && w.length > 4) forms.push(`${w.slice(0, -3)}y`);
  return forms;
}

/** Known to any reader: general or everyday vocabulary, in any of its forms. */
export function isCommonWord(word) {
  return wordForms(word).some((f) => GENERAL.has(f) || COMMON_WORDS.has(f));
}

/** Content words of the question that the context neither gives nor are general vocabulary. */
export function ungivenWords(question, context) {
  const givenWords = words(context);
  const given = new Set(givenWords.flatMap(wordForms));
  const out = [];
  const original = question.normalize("NFKC").match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) || [];
  for (const raw of original) {
    const w = raw.toLowerCase();
    if (w.length < 3 && !/\d/.test(w)) continue;
    if (isCommonWord(w)) continue;
    const s = stem(w);
    if (wordForms(w).some((f) => given.has(f))) continue;
    if (s.length >= 5 && givenWords.some((g) => g.startsWith(s.slice(0, 5)))) continue;
    if (!out.includes(raw)) out.push(raw);
  }
  return out;
}

/** Acronyms in the answer that are not spelled out in it (or in the simplification). */
export function unexplainedAcronyms(answer, simplification = "") {
  const found = answer.match(/\b(?=[A-Z0-9]*[A-Z][A-Z0-9]*[A-Z])[A-Z0-9]{2,}s?\b/g) || [];
  const out = [];
  for (const raw of found) {
    const acr = raw.replace(/s$/, "") || raw;
    if (KNOWN_ACRONYMS.has(acr) || out.includes(raw)) continue;
    const explained = [answer, simplification].some((t) => t.includes(`(${acr})`) || t.includes(`(${raw})`)
      || new RegExp(`\\b${acr}s?\\s*\\(`).test(t));
    if (!explained) out.push(raw);
  }
  return out;
}

/**
 * Warnings for one edit: {question: [text], answer: [text]}.
 * edit: {edit_type, fields, spans}; editType: schema edit type (kept for callers; the
 * rules are the same for every type); target: simplification text as code points array or
 * string.
 */
export function guidance(edit, editType, target) {
  const text = Array.isArray(target) ? target.join("") : target;
  const q = (edit.fields.question || "").trim();
  const a = (edit.fields.answer || "").trim();
  const result = { question: [], answer: [] };
  if (q) {
    if (isYesNoQuestion(q)) {
      result.question.push("This reads as a yes/no question; ask what, how much, which or why instead.");
    }
    // The whole simplification is the context, for every edit type: a word given later
    // in it (after an oversimplification's rationale) is still known to its reader; the
    // cut at the rationale flagged such words (issue 35).
    const missing = ungivenWords(q, text);
    if (missing.length) {
      result.question.push(`Not given in the simplification: ${missing.join(", ")}. A reader of the simplification may not know these.`);
    }
  }
  if (a) {
    if (answerInText(a, text)) {
      result.answer.push("The simplification already says this; if the information only moved, it was not lost.");
    }
    const acronyms = unexplainedAcronyms(a, text);
    if (acronyms.length) {
      result.answer.push(`Unexplained abbreviation${acronyms.length > 1 ? "s" : ""}: ${acronyms.join(", ")}. Spell it out in plain words.`);
    }
  }
  return result;
}
