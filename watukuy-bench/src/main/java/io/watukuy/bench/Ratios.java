package io.watukuy.bench;

import java.math.BigDecimal;
import java.math.MathContext;

/** How the tables print a ratio. */
final class Ratios {
  private static final MathContext THREE = new MathContext(3);

  private Ratios() {}

  /**
   * A ratio to three significant digits, so that a small one keeps its digits: {@code 0.00412} for
   * 0.004123, {@code 0.850} for 0.85, {@code 1.00} for 1, {@code 12.3} for 12.34, {@code 1230} for
   * 1234.
   *
   * @param ratio any number
   * @return the digits, or {@code -} when {@code ratio} is not finite
   */
  static String format(double ratio) {
    if (!Double.isFinite(ratio)) return "-";
    if (ratio == 0) return "0";
    BigDecimal r = new BigDecimal(ratio).round(THREE);
    // An exact value keeps its trailing zeros: 1.00, not 1.
    if (r.precision() < 3) r = r.setScale(r.scale() + 3 - r.precision());
    return r.toPlainString();
  }
}
