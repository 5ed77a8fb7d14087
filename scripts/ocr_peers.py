"""One engine over scans, for scripts/compare-ocr.sh: RapidOCR 3.10 (its
orientation classifier off) or Tesseract 5.3 (the `tesseract` CLI), timed per
file after the engine is loaded (peak memory: measured by the caller). Prints one JSON object per file and one for
the run, like `ragpipe bench ocr --json`."""
import json
import subprocess
import sys
import time


def rapid(files, threads):
    import numpy as np
    from PIL import Image
    from rapidocr import RapidOCR

    started = time.perf_counter()
    engine = RapidOCR(params={
        "Global.use_cls": False,
        "Global.log_level": "error",
        "EngineConfig.onnxruntime.intra_op_num_threads": threads,
        "EngineConfig.onnxruntime.inter_op_num_threads": 1,
    })
    load = time.perf_counter() - started
    total = 0.0
    for f in files:
        started = time.perf_counter()
        # A 1-bit or palette scan must be expanded first: fed as it is,
        # RapidOCR finds no text on it. Decoding counts in the time, as
        # ragpipe's does.
        result = engine(np.asarray(Image.open(f).convert("RGB"))[:, :, ::-1])
        seconds = time.perf_counter() - started
        total += seconds
        print(json.dumps({"file": f, "pages": 1, "seconds": seconds, "text": "\n".join(result.txts or ())}), flush=True)
    return load, total


def tesseract(files, threads):
    total = 0.0
    for f in files:
        started = time.perf_counter()
        out = subprocess.run(["tesseract", f, "-", "-l", "eng+spa", "--psm", "3"],
                             capture_output=True, text=True, check=True,
                             env={"OMP_THREAD_LIMIT": str(threads), "PATH": "/usr/bin:/bin"})
        seconds = time.perf_counter() - started
        total += seconds
        print(json.dumps({"file": f, "pages": 1, "seconds": seconds, "text": out.stdout}), flush=True)
    return 0.0, total


def main():
    engine, threads, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    load, total = (rapid if engine == "rapidocr" else tesseract)(files, threads)
    # Peak memory is measured around the whole process tree by compare-ocr.sh.
    print(json.dumps({"load_seconds": load, "pages": len(files), "seconds": total,
                      "pages_per_second": len(files) / total if total else 0.0}))


if __name__ == "__main__":
    main()
