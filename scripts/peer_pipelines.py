#!/usr/bin/env python3
"""The two Python ingest pipelines scripts/compare-peers.sh measures ragpipe against.

  peer_pipelines.py langchain|llamaindex --corpus DIR --model-dir DIR --threads N
      --out-dir DIR --result RESULT.json [--texts TEXTS.json]

Each is written the way the library's own documentation builds an index from
a folder, with the settings that make it comparable to `ragpipe ingest`:

  * the same all-MiniLM-L6-v2 weights (the sentence-transformers checkpoint
    scripts/provision-model.sh unpacks), loaded from disk, hub offline;
  * sequence window 256 word-pieces, as ragpipe's (the checkpoint's own
    max_seq_length; set explicitly so neither library can change it);
  * chunks of at most 254 word-pieces of that model's tokenizer, no overlap:
    254 + [CLS] + [SEP] is ragpipe's budget of 256, so no chunk is truncated
    by the model and every pipeline embeds everything it cut;
  * torch intra-op threads N (ragpipe: [model] threads = N); the tokenizer
    runs on the calling thread (TOKENIZERS_PARALLELISM=false), as ragpipe's;
  * each library's own embedding batch size (LangChain: sentence-transformers'
    32 over the whole list, which sorts it by length first; LlamaIndex: 10 per
    call) and its own in-memory vector store, persisted to --out-dir at the
    end, as ragpipe writes its index to its data dir;
  * HTML through BeautifulSoup's get_text() with Python's html.parser in both
    (LangChain's BSHTMLLoader; for LlamaIndex, whose SimpleDirectoryReader
    would hand the raw markup to the splitter, a file_extractor doing the
    same); every other file is read as plain UTF-8 text by both.

Writes RESULT.json with the documents, chunks and seconds per stage (from
process start: imports and model load are stages too), and with --texts the
texts it embedded (LlamaIndex embeds each chunk with its file_path metadata
line, as it does by default), for the driver to count word-pieces in.
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

# Before torch, transformers or tokenizers are imported.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# langchain-community says at import that it is being sunset, and that its
# HuggingFaceEmbeddings is deprecated for langchain-huggingface (which cannot
# be installed beside sentence-transformers 6: scripts/peers-requirements.txt),
# every round; said once here instead.
warnings.filterwarnings("ignore", category=DeprecationWarning)

WINDOW = 256  # ragpipe's [chunking] budget and the model's window, specials included
CHUNK_TOKENS = WINDOW - 2  # the splitters count word-pieces without [CLS]/[SEP]


class Clock:
    """Seconds per stage since the previous mark, the first from process start."""

    def __init__(self, name: str):
        self.name, self.last, self.stages = name, STARTED, {}

    def mark(self, stage: str, what: str = "") -> None:
        now = time.perf_counter()
        self.stages[stage] = now - self.last
        self.last = now
        print(f"  {self.name}: {stage} {self.stages[stage]:.1f}s{'  ' + what if what else ''}",
              file=sys.stderr, flush=True)


def quiet_transformers() -> None:
    import transformers

    # Token counting in the splitters feeds whole documents to the tokenizer:
    # "sequence longer than 512" is expected, not a problem.
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()


def langchain(args, clock: Clock) -> tuple[int, list[str]]:
    import torch

    torch.set_num_threads(args.threads)
    from langchain_community.document_loaders import BSHTMLLoader, DirectoryLoader, TextLoader
    from langchain_community.embeddings import HuggingFaceEmbeddings
    from langchain_core.vectorstores import InMemoryVectorStore
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    quiet_transformers()
    # langchain-core turns its own deprecation warnings back on at import.
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    clock.mark("import")

    embeddings = HuggingFaceEmbeddings(
        model_name=str(args.model_dir),
        model_kwargs={"device": "cpu", "local_files_only": True},
        encode_kwargs={"normalize_embeddings": True},
    )
    embeddings.client.max_seq_length = WINDOW
    clock.mark("model load")

    html = DirectoryLoader(str(args.corpus), glob="**/*.html", loader_cls=BSHTMLLoader,
                           loader_kwargs={"bs_kwargs": {"features": "html.parser"}, "open_encoding": "utf-8"})
    text = DirectoryLoader(str(args.corpus), glob="**/*", exclude="**/*.html", loader_cls=TextLoader,
                           loader_kwargs={"encoding": "utf-8"})
    docs = html.load() + text.load()
    clock.mark("read", f"{len(docs)} documents")

    splitter = RecursiveCharacterTextSplitter.from_huggingface_tokenizer(
        embeddings.client.tokenizer, chunk_size=CHUNK_TOKENS, chunk_overlap=0)
    chunks = splitter.split_documents(docs)
    clock.mark("split", f"{len(chunks)} chunks")

    store = InMemoryVectorStore(embedding=embeddings)
    store.add_documents(chunks)  # one embed_documents call over every chunk
    clock.mark("embed")

    store.dump(str(args.out_dir / "store.json"))
    clock.mark("store")
    return len(docs), [c.page_content for c in chunks]


def llamaindex(args, clock: Clock) -> tuple[int, list[str]]:
    import torch

    torch.set_num_threads(args.threads)
    from bs4 import BeautifulSoup
    from llama_index.core import Document, SimpleDirectoryReader, StorageContext, VectorStoreIndex
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.core.readers.base import BaseReader
    from llama_index.core.schema import MetadataMode
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding

    quiet_transformers()

    class HtmlText(BaseReader):
        """The text of an HTML page, as LangChain's BSHTMLLoader takes it."""

        def load_data(self, file, extra_info=None, **_):
            soup = BeautifulSoup(Path(file).read_text(encoding="utf-8"), "html.parser")
            return [Document(text=soup.get_text(""), metadata=extra_info or {})]

    clock.mark("import")

    embed_model = HuggingFaceEmbedding(model_name=str(args.model_dir), device="cpu", max_length=WINDOW,
                                       normalize=True, local_files_only=True)
    clock.mark("model load")

    docs = SimpleDirectoryReader(str(args.corpus), recursive=True, file_extractor={".html": HtmlText()}).load_data()
    clock.mark("read", f"{len(docs)} documents")

    tokenizer = embed_model._model.tokenizer
    splitter = SentenceSplitter(chunk_size=CHUNK_TOKENS, chunk_overlap=0, tokenizer=tokenizer.tokenize)
    nodes = splitter.get_nodes_from_documents(docs)
    clock.mark("split", f"{len(nodes)} chunks")

    # What VectorStoreIndex.from_documents(docs, transformations=[splitter])
    # does after splitting, with the split timed on its own.
    storage = StorageContext.from_defaults()
    index = VectorStoreIndex(nodes, storage_context=storage, embed_model=embed_model)
    clock.mark("embed")

    index.storage_context.persist(persist_dir=str(args.out_dir))
    clock.mark("store")
    return len(docs), [n.get_content(metadata_mode=MetadataMode.EMBED) for n in nodes]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pipeline", choices=["langchain", "llamaindex"])
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--model-dir", type=Path, required=True)
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--out-dir", type=Path, required=True, help="where the vector store is persisted")
    ap.add_argument("--result", type=Path, required=True)
    ap.add_argument("--texts", type=Path, help="write the embedded texts here (JSON array)")
    args = ap.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)

    clock = Clock(args.pipeline)
    run = langchain if args.pipeline == "langchain" else llamaindex
    docs, texts = run(args, clock)
    total = time.perf_counter() - STARTED

    # Package metadata, not imports: nothing after the last stage may cost time.
    from importlib.metadata import version

    libs = {"langchain": ["langchain-core", "langchain-community", "langchain-text-splitters"],
            "llamaindex": ["llama-index-core", "llama-index-embeddings-huggingface"]}[args.pipeline]
    versions = ", ".join(f"{p} {version(p)}" for p in libs + ["sentence-transformers", "torch"])
    args.result.write_text(json.dumps({
        "pipeline": args.pipeline, "threads": args.threads, "documents": docs, "chunks": len(texts),
        "stages": clock.stages, "seconds_in_process": total,
        "versions": versions,
    }, indent=2))
    if args.texts:
        args.texts.write_text(json.dumps(texts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
