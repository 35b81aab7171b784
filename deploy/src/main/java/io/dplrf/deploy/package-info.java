/**
 * The runnable jar's entry point ({@link io.dplrf.deploy.Main}) above the deployment packages:
 * {@code cli} (the commands), {@code config} (the service's typed settings), {@code serve} (the
 * service and its modes), {@code http}, {@code metrics}, {@code kafka} (the embedded broker),
 * {@code oneshot} (the one-shot mechanisms behind the commands) and {@code io} (file formats).
 */
package io.dplrf.deploy;
