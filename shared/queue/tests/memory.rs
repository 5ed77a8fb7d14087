//! The queue conformance suite against the embedded adapter; each check gets
//! its own queue, with the smallest bound the suite allows.

ragpipe_queue::queue_conformance!(((), ragpipe_queue::MemoryQueue::new(16)));
