//! Plan cache. Work in progress.
