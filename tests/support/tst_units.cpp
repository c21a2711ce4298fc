// core/support/units: one number format for every view and the CLI.
#include "core/support/units.h"

#include <gtest/gtest.h>
#include <limits>

using namespace tessera;

TEST(Units, CountsKeepThreeFiguresWithSiPrefixes)
{
    EXPECT_EQ(units::count(0), "0");
    EXPECT_EQ(units::count(950), "950");
    EXPECT_EQ(units::count(1234), "1.23 k");
    EXPECT_EQ(units::count(25.6e6), "25.6 M");
    EXPECT_EQ(units::count(-4200), "-4.20 k");
}

// Issue 18: Run Comparison printed a count of 2.19e24 as "2194619767 P".
TEST(Units, HugeCountsUseTheLargePrefixesNotTenDigits)
{
    EXPECT_EQ(units::count(2.1946e24), "2.19 Y");
    EXPECT_EQ(units::count(3.1e27), "3.10e+03 Y");
    EXPECT_EQ(units::count(std::numeric_limits<double>::quiet_NaN()), "n/a");
}

TEST(Units, NeverFourDigitsBeforeThePoint)
{
    EXPECT_EQ(units::count(999.4), "999");
    EXPECT_EQ(units::count(999.6), "1.00 k");
    EXPECT_EQ(units::count(999'600), "1.00 M");
    EXPECT_EQ(units::bytes(1000), "0.977 KiB"); // 1000 B would need four digits
    EXPECT_EQ(units::durationNs(999'960), "1.000 ms");
}

TEST(Units, BytesUseBinaryPrefixes)
{
    EXPECT_EQ(units::bytes(512), "512 B");
    EXPECT_EQ(units::bytes(784 * 1024), "784 KiB");
    EXPECT_EQ(units::bytes(97.7 * 1024 * 1024), "97.7 MiB");
    EXPECT_EQ(units::flops(8.21e9), "8.21 GFLOP");
    EXPECT_EQ(units::flops(0), "0 FLOP");
}

// Issue 18: a Stages total of "4.8 ms" hid an override's effect; times keep four figures.
TEST(Units, TimesKeepFourFigures)
{
    EXPECT_EQ(units::durationNs(0), "0 ns");
    EXPECT_EQ(units::durationNs(950), "950 ns");
    EXPECT_EQ(units::durationNs(12'340), "12.34 µs");
    EXPECT_EQ(units::durationMs(4.812), "4.812 ms");
    EXPECT_EQ(units::durationMs(4.8), "4.800 ms");
    EXPECT_EQ(units::durationNs(1.2e9), "1.200 s");
    EXPECT_NE(units::durationMs(4.812), units::durationMs(4.818)); // differ in the fourth figure
}

TEST(Units, EnergyPowerAndRates)
{
    EXPECT_EQ(units::energyJ(0), "0 J");
    EXPECT_EQ(units::energyJ(4.56e-3), "4.560 mJ");
    EXPECT_EQ(units::energyJ(3.25), "3.250 J");
    EXPECT_EQ(units::powerW(250), "250.0 W");
    EXPECT_EQ(units::powerW(0.0125), "12.50 mW");
    EXPECT_EQ(units::rate(950, "images/s"), "950 images/s");
    EXPECT_EQ(units::rate(1064, "images/s"), "1.064 k images/s");
}
