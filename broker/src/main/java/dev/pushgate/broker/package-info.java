/**
 * The GitHub App credential broker. {@link dev.pushgate.broker.GitHubApp} issues installation
 * tokens scoped to one repository (read for runs, write for the gateway), checks every grant
 * against what was asked, and revokes tokens. {@link dev.pushgate.broker.GitHubAppConfig} says
 * where GitHub is, {@link dev.pushgate.broker.AppKeyLoader} reads the App key, and every failure is
 * a {@link dev.pushgate.broker.BrokerException} with a {@link
 * dev.pushgate.broker.BrokerException.Reason}. Tokens travel as {@link dev.pushgate.types.Secret}
 * and never reach a message or a log line.
 */
package dev.pushgate.broker;
