//! The Elm loop: model, messages, update, and the runtime that runs commands.
