package io.watukuy.cli;

import picocli.CommandLine.Model.CommandSpec;

/**
 * The question a command that deletes asks before it does (docs/config.md, "Effects commands":
 * {@code effects forget} and {@code effects rewind}), so both ask and refuse alike.
 */
final class Confirmation {
  private Confirmation() {}

  /**
   * Whether the operator confirms: true at once with {@code --yes}; otherwise {@code question} is
   * asked at the terminal and only {@code y} or {@code yes} (any case, spaces around ignored)
   * confirms. Any other answer, or the end of input, prints {@code watukuy: effect NAME: not DONE}
   * on the error stream and is false.
   *
   * @param cli the command line, for its terminal and error stream
   * @param spec the command, named by the usage error
   * @param yes whether {@code --yes} was given
   * @param effect the effect's name, for the refusal
   * @param verb what the command does, as in {@code give --yes to VERB} ({@code forget})
   * @param done its past participle, as in {@code not DONE} ({@code forgotten})
   * @param question the question, ending in {@code [y/N] }
   * @return whether to go on
   * @throws picocli.CommandLine.ParameterException without {@code --yes} when standard input is not
   *     a terminal: nobody can answer, so nothing is deleted and the exit is a usage error
   */
  static boolean confirmed(
      Cli cli,
      CommandSpec spec,
      boolean yes,
      String effect,
      String verb,
      String done,
      String question) {
    if (yes) return true;
    if (cli.terminal == null)
      throw OperationCommands.usage(
          spec,
          "standard input is not a terminal: give --yes to " + verb + " (nothing " + done + ")");
    String answer = cli.terminal.ask(question);
    if (answer != null && answer.strip().matches("(?i)y|yes")) return true;
    cli.err.println("watukuy: effect " + effect + ": not " + done);
    return false;
  }
}
