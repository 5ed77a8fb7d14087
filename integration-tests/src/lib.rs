//! ragpipe-integration-tests
