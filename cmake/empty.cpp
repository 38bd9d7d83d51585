// Keeps libraries with no sources yet linkable.
