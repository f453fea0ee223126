package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.watukuy.ChangeEvent;
import io.watukuy.EventType;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.Lane;
import io.watukuy.sink.EventFormat;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A failed write to an {@code output:} is recognised by its type, so the command reports the outage
 * once and not once per retry (docs/sinks.md, "stdout and file"); another sink's failure whose
 * message merely starts with {@code output } is not taken for one.
 */
class OutputWriteFailureTest {
  @Test
  void aWriteToAClosedPipeIsAnOutputWriteFailure() throws Exception {
    OutputSink sink = OutputSink.stdout(EventFormat.ENVELOPE);
    sink.writeTo(new PrintStream(new ClosedPipe(), true));
    sink.open();

    Throwable thrown = catchThrowable(() -> sink.handle(List.of(event())));

    assertThat(thrown)
        .isInstanceOf(HandlerUnavailableException.class)
        .hasMessageStartingWith("output ")
        .hasCauseInstanceOf(OutputFailedException.class);
    assertThat(OutputSink.isWriteFailure(thrown)).isTrue();
  }

  @Test
  void anotherSinksFailureWhoseMessageStartsWithOutputIsNot() {
    Throwable other =
        new HandlerUnavailableException(
            "output queue full", new IOException("output queue full on the broker"));

    assertThat(OutputSink.isWriteFailure(other)).isFalse();
    assertThat(OutputSink.isWriteFailure(null)).isFalse();
  }

  private static ChangeEvent<Object> event() {
    return new ChangeEvent<>(
        "3f2a".repeat(16),
        EventType.CREATED,
        "orders",
        "",
        "order-1",
        "order-1",
        "v1",
        "abc",
        1,
        Lane.LIVE,
        1,
        Instant.parse("2024-05-01T10:00:00Z"),
        Map.of("id", "order-1"),
        null,
        1);
  }

  /** A stream whose every write fails, as a pipe whose reader went away. */
  private static final class ClosedPipe extends OutputStream {
    @Override
    public void write(int b) throws IOException {
      throw new IOException("Broken pipe");
    }
  }
}
