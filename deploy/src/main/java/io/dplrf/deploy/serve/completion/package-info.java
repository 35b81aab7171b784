/**
 * Mode {@code completion}: ratings stored exactly, and a private matrix completion fitted from them
 * after every epoch under joint DP (docs/completion-service.md, docs/privacy/completion.md).
 * {@link io.dplrf.deploy.serve.completion.CompletionMode} is the mode; the item side is released,
 * each user's row is completed only for the holder of that user's token.
 */
package io.dplrf.deploy.serve.completion;
