//! The conformance check every [`Collections`] adapter must pass: a reindex
//! creates a collection beside the live one, readers open existing ones
//! without ever creating them, the alias moves, and a dropped collection is
//! gone (dropping a missing one is fine).

use crate::conformance::fixture::{chunks_of, doc_id};
use crate::{Bm25, CollectionSpec, Collections};

/// `prefix` makes the collection names unique on a shared server.
pub async fn collections_lifecycle(collections: &dyn Collections, prefix: &str) {
    let spec = CollectionSpec { model: "conformance".into(), dims: 384, pipeline_version: "1".into() };
    let (a, b) = (format!("{prefix}_a"), format!("{prefix}_b"));
    assert!(collections.open(&a, &spec).await.unwrap().is_none(), "open never creates");

    let store = collections.create(&a, &spec).await.unwrap();
    store.upsert(chunks_of(&Bm25::new(), "a", 1, 3, 0)).await.unwrap();
    drop(store);
    let reopened = collections.open(&a, &spec).await.unwrap().expect("created");
    assert_eq!(reopened.count(&doc_id("a"), None).await.unwrap(), 3);
    drop(reopened);
    let again = collections.create(&a, &spec).await.unwrap();
    assert_eq!(again.count(&doc_id("a"), None).await.unwrap(), 3, "creating an existing collection keeps it");
    drop(again);

    let other = collections.create(&b, &spec).await.unwrap();
    assert_eq!(other.count(&doc_id("a"), None).await.unwrap(), 0, "collections are separate");
    drop(other);
    collections.publish(&a).await.unwrap();
    collections.publish(&b).await.unwrap();

    collections.drop_collection(&a).await.unwrap();
    assert!(collections.open(&a, &spec).await.unwrap().is_none(), "dropped");
    collections.drop_collection(&a).await.unwrap();
    let kept = collections.open(&b, &spec).await.unwrap().expect("the other one stays");
    assert_eq!(kept.count(&doc_id("a"), None).await.unwrap(), 0);
    drop(kept);
    collections.drop_collection(&b).await.unwrap();
}
