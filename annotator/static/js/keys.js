// The key of a rating item, `level|item|field`. The server builds it (annotator/core/keys.py)
// and sends it on every rating as `key`; the pages index ratings by that key and look items
// up with this function, the one place the browser spells the format.

export const ratingKey = (level, item, field) => [level, String(item), field].join("|");
